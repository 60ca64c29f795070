import { withAdmin, adminResult } from "@/lib/api/with-admin";
import { parseInput, queryObject } from "@/lib/api/parse-input";
import { actorLabel, recordAudit } from "@/lib/audit/audit-trail";
import { rotateWebhookSecret } from "@/lib/webhooks/manage-webhook";
import { rotateQuery } from "@/lib/webhooks/webhook-schemas";

export const dynamic = "force-dynamic";

// POST /api/admin/accounts/{accountId}/webhook/rotate-secret[?overlapHours=24]: a new secret; the old one signs
// beside it until the overlap ends.
export const POST = withAdmin(async ({ req, accountId, actor, ip }) => {
  const { overlapHours } = parseInput(rotateQuery, queryObject(req));
  const webhook = await rotateWebhookSecret(accountId, { overlapHours });
  const previous = webhook.secrets[1];
  await recordAudit({
    accountId,
    actor: actorLabel(actor),
    action: "webhook.secret_rotated",
    target: `secret ${webhook.secrets[0]!.id}`,
    detail: previous?.expiresAt ? `the previous secret signs until ${previous.expiresAt}` : "",
    ip,
  });
  return adminResult({ webhook }, true);
});
