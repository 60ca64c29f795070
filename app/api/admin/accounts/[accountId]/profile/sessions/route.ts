import { withAdmin, adminResult } from "@/lib/api/with-admin";
import { sessionUser } from "@/lib/api/session-user";
import { listUserSessions } from "@/lib/auth/list-sessions";

export const dynamic = "force-dynamic";

// GET /api/admin/accounts/{accountId}/profile/sessions: the signed-in user's open sessions, this one marked current.
export const GET = withAdmin(
  async ({ accountId, actor }) => {
    const user = sessionUser(actor);
    return adminResult(await listUserSessions({ accountId, userId: user.userId, currentSessionId: user.sessionId }));
  },
  { agents: true, beforeTwoFactor: true },
);
