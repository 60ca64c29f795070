import { withAdmin, adminResult } from "@/lib/api/with-admin";
import { readJson } from "@/lib/api/read-json";
import { getOptSettings, parseOptSettings, updateOptSettings } from "@/lib/opt/opt-settings";

export const dynamic = "force-dynamic";

// GET /api/admin/accounts/{accountId}/opt/settings: the footer and the automatic replies, with their defaults.
export const GET = withAdmin(async ({ accountId }) => adminResult({ settings: await getOptSettings(accountId) }));

// PUT /api/admin/accounts/{accountId}/opt/settings: set any of footer, stopReply, startReply, helpReply (null: default).
export const PUT = withAdmin(async ({ req, accountId, actor, log }) => {
  const input = parseOptSettings(await readJson(req));
  const settings = await updateOptSettings(accountId, input);
  log.info({ accountId, actor, fields: Object.keys(input) }, "opt settings updated");
  return adminResult({ settings }, true);
});
