import { withAdmin, adminResult } from "@/lib/api/with-admin";
import { ApiError } from "@/lib/api/api-error";
import { actorLabel, recordAudit } from "@/lib/audit/audit-trail";
import { CAMPAIGN_ACTIONS, type CampaignAction } from "@/lib/campaigns/campaign-schema";
import { changeCampaign } from "@/lib/campaigns/manage-campaigns";

export const dynamic = "force-dynamic";

// POST /api/admin/accounts/{accountId}/campaigns/{campaignId}/pause | resume | cancel. Admins only; audited.
export const POST = withAdmin(async ({ accountId, actor, ip, params }) => {
  const action = String(params.action) as CampaignAction;
  if (!CAMPAIGN_ACTIONS.includes(action)) throw new ApiError("NotFound", { detail: "pause, resume or cancel" });
  const by = actor.kind === "user" ? `${actor.name || actor.email} in the portal` : "the API";
  const campaign = await changeCampaign({ accountId, campaignId: String(params.campaignId), action, by });
  const audited = { pause: "campaign.paused", resume: "campaign.resumed", cancel: "campaign.cancelled" } as const;
  await recordAudit({ accountId, actor: actorLabel(actor), action: audited[action], target: campaign.name, ip });
  return adminResult({ campaign }, true);
});
