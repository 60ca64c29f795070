import { withAdmin, adminResult } from "@/lib/api/with-admin";
import { readJson } from "@/lib/api/read-json";
import { parseInput } from "@/lib/api/parse-input";
import { sessionUser } from "@/lib/api/session-user";
import { changePassword } from "@/lib/accounts/change-password";
import { passwordChangeInput } from "@/lib/accounts/user-schema";

export const dynamic = "force-dynamic";

// POST /api/admin/accounts/{accountId}/profile/password: {currentPassword, newPassword}; the signed-in user's own
// password. Their other sessions end; this one stays.
export const POST = withAdmin(
  async ({ req, accountId, actor, ip }) => {
    const user = sessionUser(actor);
    const change = parseInput(passwordChangeInput, await readJson(req));
    const { endedSessions } = await changePassword({
      accountId,
      userId: user.userId,
      currentSessionId: user.sessionId,
      change,
      ip,
    });
    return adminResult({ changed: true, endedSessions }, true);
  },
  { agents: true, beforeTwoFactor: true },
);
