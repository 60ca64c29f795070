import { withAdmin, adminResult } from "@/lib/api/with-admin";
import { readJson } from "@/lib/api/read-json";
import { actorLabel, recordAudit } from "@/lib/audit/audit-trail";
import { getOptSettings, parseOptSettings, updateOptSettings } from "@/lib/opt/opt-settings";

export const dynamic = "force-dynamic";

// GET /api/admin/accounts/{accountId}/opt/settings: the footer and the automatic replies, with their defaults.
export const GET = withAdmin(async ({ accountId }) => adminResult({ settings: await getOptSettings(accountId) }));

// PUT /api/admin/accounts/{accountId}/opt/settings: set any of footer, stopReply, startReply, helpReply (null: default).
export const PUT = withAdmin(async ({ req, accountId, actor, ip }) => {
  const input = parseOptSettings(await readJson(req));
  const settings = await updateOptSettings(accountId, input);
  const changed = Object.entries(input).map(([field, value]) => (value === null ? `${field} (default)` : field));
  await recordAudit({
    accountId,
    actor: actorLabel(actor),
    action: "settings.updated",
    target: "opt replies and footer",
    detail: changed.join(", "),
    ip,
  });
  return adminResult({ settings }, true);
});
