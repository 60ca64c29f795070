import { withApiKey, withoutAuth } from "@/lib/api/with-api-key";
import { successEnvelope } from "@/lib/api/envelope";
import { getCampaign } from "@/lib/campaigns/manage-campaigns";

// GET /v3/campaigns/{campaignId}: one campaign of the key's account and what its messages did.
export const GET = withApiKey(async ({ principal, params }) =>
  successEnvelope("QueryCompletedSuccessfully", {
    accountId: principal.accountId,
    campaign: await getCampaign({ accountId: principal.accountId, campaignId: String(params.campaignId) }),
  }),
);

export const POST = withoutAuth("ResourceNotAllowed");
export const PUT = withoutAuth("ResourceNotAllowed");
export const DELETE = withoutAuth("ResourceNotAllowed");
export const PATCH = withoutAuth("ResourceNotAllowed");
