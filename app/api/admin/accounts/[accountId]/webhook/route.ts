import { withAdmin, adminResult } from "@/lib/api/with-admin";
import { readJson } from "@/lib/api/read-json";
import { parseInput } from "@/lib/api/parse-input";
import { actorLabel, recordAudit } from "@/lib/audit/audit-trail";
import { getWebhookSettings, removeWebhook, setWebhookSettings } from "@/lib/webhooks/manage-webhook";
import { webhookSettingsInput } from "@/lib/webhooks/webhook-schemas";

export const dynamic = "force-dynamic";

// GET /api/admin/accounts/{accountId}/webhook: the URL, the header (value masked) and the signing secrets.
export const GET = withAdmin(async ({ accountId }) => adminResult({ webhook: await getWebhookSettings(accountId) }));

// PUT /api/admin/accounts/{accountId}/webhook: {url, headerName?, headerValue?}; the URL passes the guard; a header
// name without a value keeps the value stored for it.
export const PUT = withAdmin(async ({ req, accountId, actor, ip }) => {
  const input = parseInput(webhookSettingsInput, await readJson(req));
  const webhook = await setWebhookSettings(accountId, input);
  // The header's value is the receiver's credential: the trail says it changed, never what it is.
  const header = webhook.headerName
    ? `header ${webhook.headerName}${input.headerValue?.trim() ? " (new value)" : ""}`
    : "no header";
  await recordAudit({
    accountId,
    actor: actorLabel(actor),
    action: "webhook.updated",
    target: webhook.url!,
    detail: header,
    ip,
  });
  return adminResult({ webhook }, true);
});

// DELETE /api/admin/accounts/{accountId}/webhook: no more events are written for the account.
export const DELETE = withAdmin(async ({ accountId, actor, ip }) => {
  const removed = await removeWebhook(accountId);
  await recordAudit({
    accountId,
    actor: actorLabel(actor),
    action: "webhook.removed",
    target: removed.previousUrl ?? "",
    ip,
  });
  return adminResult({ webhook: removed.webhook }, true);
});
