import { withAdmin, adminResult } from "@/lib/api/with-admin";
import { getCampaign } from "@/lib/campaigns/manage-campaigns";

export const dynamic = "force-dynamic";

// GET /api/admin/accounts/{accountId}/campaigns/{campaignId}: one campaign and what its messages did.
export const GET = withAdmin(async ({ accountId, params }) =>
  adminResult({ campaign: await getCampaign({ accountId, campaignId: String(params.campaignId) }) }),
);
