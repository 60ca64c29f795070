import { withAdmin, adminResult } from "@/lib/api/with-admin";
import { readJson } from "@/lib/api/read-json";
import { parseInput } from "@/lib/api/parse-input";
import {
  getWebhookSettings,
  removeWebhook,
  setWebhookSettings,
  webhookSettingsInput,
} from "@/lib/webhooks/manage-webhook";

export const dynamic = "force-dynamic";

// GET /api/admin/accounts/{accountId}/webhook: the URL, the header (value masked) and the signing secrets.
export const GET = withAdmin(async ({ accountId }) => adminResult({ webhook: await getWebhookSettings(accountId) }));

// PUT /api/admin/accounts/{accountId}/webhook: {url, headerName?, headerValue?}; the URL passes the guard.
export const PUT = withAdmin(async ({ req, accountId }) => {
  const input = parseInput(webhookSettingsInput, await readJson(req));
  return adminResult({ webhook: await setWebhookSettings(accountId, input) }, true);
});

// DELETE /api/admin/accounts/{accountId}/webhook: no more events are written for the account.
export const DELETE = withAdmin(async ({ accountId }) =>
  adminResult({ webhook: await removeWebhook(accountId) }, true),
);
