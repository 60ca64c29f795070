import { withAdmin, adminResult } from "@/lib/api/with-admin";
import { listUserSessions } from "@/lib/auth/list-sessions";
import { signOutEverywhere } from "@/lib/auth/end-sessions";

export const dynamic = "force-dynamic";

// GET /api/admin/accounts/{accountId}/users/{userId}/sessions: a user's open portal sessions.
export const GET = withAdmin(async ({ accountId, actor, params }) => {
  const currentSessionId = actor.kind === "user" ? actor.sessionId : undefined;
  return adminResult(await listUserSessions({ accountId, userId: String(params.userId), currentSessionId }));
});

// DELETE /api/admin/accounts/{accountId}/users/{userId}/sessions: "Sign out everywhere", every session of the user.
export const DELETE = withAdmin(async ({ accountId, actor, ip, params }) => {
  return adminResult(await signOutEverywhere({ accountId, userId: String(params.userId), by: { actor, ip } }), true);
});
