import { withAdmin, adminResult } from "@/lib/api/with-admin";
import { parseInput, queryObject } from "@/lib/api/parse-input";
import { simulatorThreadQuery } from "@/lib/carriers/simulator/phone-simulator-schema";
import { readPhoneThread } from "@/lib/carriers/simulator/phone-simulator";

export const dynamic = "force-dynamic";

// GET /api/admin/accounts/{accountId}/simulator/thread?phone=&accountNumber=&count=: what a simulated phone sent
// to one of the account's numbers and received from it, the last `count` (50, at most 500), oldest first.
export const GET = withAdmin(async ({ req, accountId }) => {
  const query = parseInput(simulatorThreadQuery, queryObject(req));
  return adminResult({ thread: await readPhoneThread({ accountId, ...query }) });
});
