import { withApiKey, withoutAuth } from "@/lib/api/with-api-key";
import { successEnvelope } from "@/lib/api/envelope";
import { ApiError } from "@/lib/api/api-error";
import { CAMPAIGN_ACTIONS, type CampaignAction } from "@/lib/campaigns/campaign-schema";
import { changeCampaign } from "@/lib/campaigns/manage-campaigns";

// POST /v3/campaigns/{campaignId}/pause | resume | cancel (no body).
export const POST = withApiKey(async ({ principal, params }) => {
  const action = String(params.action) as CampaignAction;
  if (!CAMPAIGN_ACTIONS.includes(action)) throw new ApiError("UnknownResource");
  const campaign = await changeCampaign({
    accountId: principal.accountId,
    campaignId: String(params.campaignId),
    action,
    by: "the API",
  });
  return successEnvelope("UpdateSuccessful", { accountId: principal.accountId, campaign });
});

export const GET = withoutAuth("ResourceNotAllowed");
export const PUT = withoutAuth("ResourceNotAllowed");
export const DELETE = withoutAuth("ResourceNotAllowed");
export const PATCH = withoutAuth("ResourceNotAllowed");
