import { withAdmin, adminResult } from "@/lib/api/with-admin";
import { parseInput, queryObject } from "@/lib/api/parse-input";
import { eventQuery, listWebhookEvents } from "@/lib/webhooks/webhook-log";

export const dynamic = "force-dynamic";

// GET /api/admin/accounts/{accountId}/webhook/events?status&messageId&since&until&limit: events, newest first.
export const GET = withAdmin(async ({ req, accountId }) => {
  const query = parseInput(eventQuery, queryObject(req));
  return adminResult({ events: await listWebhookEvents(accountId, query) });
});
