import { withAdmin, adminResult } from "@/lib/api/with-admin";
import { readJson } from "@/lib/api/read-json";
import { parseInput, queryObject } from "@/lib/api/parse-input";
import { actorLabel } from "@/lib/audit/audit-trail";
import { listOptStates, parseOptChange, setOptStatus } from "@/lib/opt/manage-opt";
import { optNumbersQuery } from "@/lib/opt/opt-schemas";

export const dynamic = "force-dynamic";

// GET /api/admin/accounts/{accountId}/opt/numbers: numbers with an opt record (status=in|out to filter; start and
// count to page), with the total.
export const GET = withAdmin(async ({ req, accountId }) => {
  const query = parseInput(optNumbersQuery, queryObject(req));
  return adminResult(await listOptStates({ accountId, ...query }));
});

// POST /api/admin/accounts/{accountId}/opt/numbers: an admin opts a number out or in ({number, action, note}),
// recorded in the audit trail with who did it.
export const POST = withAdmin(async ({ req, accountId, actor }) => {
  const change = parseOptChange(await readJson(req));
  const event = await setOptStatus({ accountId, ...change, actor: actorLabel(actor) });
  return adminResult({ event }, true);
});
