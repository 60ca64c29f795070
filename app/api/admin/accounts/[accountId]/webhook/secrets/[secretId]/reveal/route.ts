import { withAdmin, adminResult } from "@/lib/api/with-admin";
import { actorLabel, recordAudit } from "@/lib/audit/audit-trail";
import { revealWebhookSecret } from "@/lib/webhooks/manage-webhook";

export const dynamic = "force-dynamic";

// POST /api/admin/accounts/{accountId}/webhook/secrets/{secretId}/reveal: one signing secret in full, for an admin
// who asked to see it (a POST: it is audited, never cached, and subject to the cross-site check).
export const POST = withAdmin(async ({ accountId, actor, ip, params }) => {
  const secret = await revealWebhookSecret(accountId, String(params.secretId));
  await recordAudit({
    accountId,
    actor: actorLabel(actor),
    action: "webhook.secret_revealed",
    target: `secret ${secret.id}`,
    ip,
  });
  return adminResult({ secret });
});
