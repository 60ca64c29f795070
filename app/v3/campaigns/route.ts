import { withApiKey, withoutAuth } from "@/lib/api/with-api-key";
import { readJson } from "@/lib/api/read-json";
import { successEnvelope } from "@/lib/api/envelope";
import { campaignAccount, createCampaign, listCampaigns } from "@/lib/campaigns/manage-campaigns";

// POST /v3/campaigns: {accountId, name, fromNumbers, body, audience, sendAt?}; every message stored before the answer.
export const POST = withApiKey(async ({ req, principal, requestId }) => {
  const raw = await readJson(req);
  const { accountId, rest } = campaignAccount(principal, raw);
  const campaign = await createCampaign({
    accountId,
    raw: rest,
    sender: { kind: "apiKey", ...principal },
    createdBy: "API",
    requestId,
  });
  return successEnvelope("MessageCreateSuccessful", { accountId, campaign });
});

// GET /v3/campaigns?accountId=: the account's campaigns, newest first, with their counts.
export const GET = withApiKey(async ({ req, principal }) => {
  const { accountId } = campaignAccount(principal, { accountId: new URL(req.url).searchParams.get("accountId") });
  return successEnvelope("QueryCompletedSuccessfully", { accountId, campaigns: await listCampaigns(accountId) });
});

export const PUT = withoutAuth("ResourceNotAllowed");
export const DELETE = withoutAuth("ResourceNotAllowed");
export const PATCH = withoutAuth("ResourceNotAllowed");
