import { withAdmin, adminResult } from "@/lib/api/with-admin";
import { actorLabel, recordAudit } from "@/lib/audit/audit-trail";
import { cancelMessage } from "@/lib/messaging/cancel-message";

export const dynamic = "force-dynamic";

// POST /api/admin/accounts/{accountId}/messages/{messageId}/cancel: the message page's Cancel, for a message that
// has not left (scheduled, or queued with nothing handed to the carrier). Admins only; audited.
export const POST = withAdmin(async ({ accountId, actor, ip, params }) => {
  const by = actor.kind === "user" ? `${actor.name || actor.email} in the portal` : "the API";
  const result = await cancelMessage({ accountId, messageId: String(params.messageId), by });
  await recordAudit({ accountId, actor: actorLabel(actor), action: "message.cancelled", target: result.messageId, ip });
  return adminResult({ ...result }, true);
});
