import { withAdmin, adminResult } from "@/lib/api/with-admin";
import { readJson } from "@/lib/api/read-json";
import { actorLabel, recordAudit } from "@/lib/audit/audit-trail";
import { createCampaign, listCampaigns } from "@/lib/campaigns/manage-campaigns";

export const dynamic = "force-dynamic";

// GET /api/admin/accounts/{accountId}/campaigns: the account's campaigns, newest first, with their counts.
export const GET = withAdmin(async ({ accountId }) => adminResult({ campaigns: await listCampaigns(accountId) }));

// POST /api/admin/accounts/{accountId}/campaigns: {name, fromNumbers, body, audience: {tag} | {numbers}, sendAt?}.
// Every message is stored before the answer. Admins only; audited.
export const POST = withAdmin(async ({ req, accountId, actor, ip, requestId }) => {
  const campaign = await createCampaign({
    accountId,
    raw: await readJson(req),
    sender:
      actor.kind === "user"
        ? { kind: "user", accountId, userId: actor.userId }
        : { kind: "apiKey", accountId, apiKeyId: actor.apiKeyId },
    createdBy: actor.kind === "user" ? actor.name || actor.email : "API",
    requestId,
  });
  await recordAudit({
    accountId,
    actor: actorLabel(actor),
    action: "campaign.created",
    target: campaign.name,
    detail: `${campaign.recipients} phones`,
    ip,
  });
  return adminResult({ campaign }, true);
});
