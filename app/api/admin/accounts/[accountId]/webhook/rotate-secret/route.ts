import { z } from "zod";
import { withAdmin, adminResult } from "@/lib/api/with-admin";
import { parseInput, queryObject } from "@/lib/api/parse-input";
import { rotateWebhookSecret } from "@/lib/webhooks/manage-webhook";

export const dynamic = "force-dynamic";

const rotateQuery = z.object({ overlapHours: z.coerce.number().min(0).max(720).optional() });

// POST /api/admin/accounts/{accountId}/webhook/rotate-secret[?overlapHours=24]: a new secret; the old one signs
// beside it until the overlap ends.
export const POST = withAdmin(async ({ req, accountId }) => {
  const { overlapHours } = parseInput(rotateQuery, queryObject(req));
  return adminResult({ webhook: await rotateWebhookSecret(accountId, { overlapHours }) }, true);
});
