import { withAdmin, adminResult } from "@/lib/api/with-admin";
import { parseInput, queryObject } from "@/lib/api/parse-input";
import { listWebhookAttempts } from "@/lib/webhooks/webhook-log";
import { attemptQuery } from "@/lib/webhooks/webhook-schemas";

export const dynamic = "force-dynamic";

// GET /api/admin/accounts/{accountId}/webhook/attempts?eventId&messageId&outcome=ok|failed&since&until&limit:
// the delivery log, newest first.
export const GET = withAdmin(async ({ req, accountId }) => {
  const query = parseInput(attemptQuery, queryObject(req));
  return adminResult({ attempts: await listWebhookAttempts(accountId, query) });
});
