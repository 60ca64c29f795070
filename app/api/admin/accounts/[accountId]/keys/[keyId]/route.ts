import { withAdmin, adminResult } from "@/lib/api/with-admin";
import { apiKeyListing, revokeApiKey } from "@/lib/accounts/manage-accounts";

export const dynamic = "force-dynamic";

// DELETE /api/admin/accounts/{accountId}/keys/{keyId}: revoke; the API refuses the key within API_KEY_CACHE_SECONDS.
export const DELETE = withAdmin(async ({ accountId, actor, ip, params }) => {
  const revoked = await revokeApiKey({ accountId, id: String(params.keyId), by: { actor, ip } });
  return adminResult({ key: apiKeyListing(revoked) }, true);
});
