import { withAdmin, adminResult } from "@/lib/api/with-admin";
import { revokeUserSession } from "@/lib/auth/end-sessions";

export const dynamic = "force-dynamic";

// DELETE /api/admin/accounts/{accountId}/users/{userId}/sessions/{sessionId}: revokes one session of a user.
export const DELETE = withAdmin(async ({ accountId, actor, ip, params }) => {
  const target = { accountId, userId: String(params.userId), sessionId: String(params.sessionId) };
  return adminResult(await revokeUserSession({ ...target, by: { actor, ip } }), true);
});
