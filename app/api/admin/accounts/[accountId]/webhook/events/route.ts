import { withAdmin, adminResult } from "@/lib/api/with-admin";
import { parseInput, queryObject } from "@/lib/api/parse-input";
import { listWebhookEvents } from "@/lib/webhooks/webhook-log";
import { eventQuery } from "@/lib/webhooks/webhook-schemas";

export const dynamic = "force-dynamic";

// GET /api/admin/accounts/{accountId}/webhook/events?status&kind&messageId&since&until&start&limit&include=attempts:
// events, newest first, a page at a time, with the total that match (and each event's attempts when asked).
export const GET = withAdmin(async ({ req, accountId }) => {
  const query = parseInput(eventQuery, queryObject(req));
  return adminResult(await listWebhookEvents(accountId, query));
});
