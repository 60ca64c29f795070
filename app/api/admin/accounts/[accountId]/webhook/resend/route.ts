import { withAdmin, adminResult } from "@/lib/api/with-admin";
import { readJson } from "@/lib/api/read-json";
import { parseInput } from "@/lib/api/parse-input";
import { resendWebhookEvents } from "@/lib/webhooks/webhook-log";
import { resendInput } from "@/lib/webhooks/webhook-schemas";

export const dynamic = "force-dynamic";

// POST /api/admin/accounts/{accountId}/webhook/resend: {eventId} for one event, or {since, until} for every
// failed event created in that range.
export const POST = withAdmin(async ({ req, accountId }) => {
  const input = parseInput(resendInput, await readJson(req));
  return adminResult(await resendWebhookEvents(accountId, input), true);
});
