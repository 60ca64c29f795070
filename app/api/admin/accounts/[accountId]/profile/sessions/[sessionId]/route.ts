import { withAdmin, adminResult } from "@/lib/api/with-admin";
import { sessionUser } from "@/lib/api/session-user";
import { revokeUserSession } from "@/lib/auth/end-sessions";

export const dynamic = "force-dynamic";

// DELETE /api/admin/accounts/{accountId}/profile/sessions/{sessionId}: signs one of the user's own sessions out.
export const DELETE = withAdmin(
  async ({ accountId, actor, ip, params }) => {
    const user = sessionUser(actor);
    const sessionId = String(params.sessionId);
    return adminResult(await revokeUserSession({ accountId, userId: user.userId, sessionId, by: { actor, ip } }), true);
  },
  { agents: true, beforeTwoFactor: true },
);
