import { getServerSession, type Session } from "next-auth";
import { authOptions, type PortalSession } from "./auth-options";
import { activeUser, type ActiveUser } from "./active-user";

export type PortalUser = ActiveUser;

/** The portal user of a next-auth session, or null when there is none (or it lacks the account). */
export function portalUser(session: Session | null): PortalSession["user"] | null {
  const user = session?.user as Partial<PortalSession["user"]> | undefined;
  if (!user?.accountId || !user.email || !user.id) return null;
  return {
    id: user.id,
    email: user.email,
    name: user.name,
    accountId: user.accountId,
    role: user.role === "admin" ? "admin" : "agent",
    sessionId: typeof user.sessionId === "string" ? user.sessionId : "",
  };
}

/**
 * The signed-in user of this request, read again from the database with the session record: an ended session, or
 * a disabled or deleted user, has no session any more, and a changed role counts from the next request, not from
 * when the session's token expires.
 */
export async function userOfSession(session: Session | null): Promise<PortalUser | null> {
  const claimed = portalUser(session);
  if (!claimed) return null;
  return activeUser({ userId: claimed.id, accountId: claimed.accountId, sessionId: claimed.sessionId });
}

/** The signed-in user of the current request (server components, route handlers), or null. */
export async function currentPortalUser(): Promise<PortalUser | null> {
  return userOfSession(await getServerSession(authOptions));
}
