import { db } from "../db/client";
import { logger } from "../log";
import { SESSION_LIFETIME_SECONDS } from "./start-session";

export interface ActiveUser {
  id: string;
  email: string;
  name: string;
  accountId: string;
  role: "admin" | "agent";
  /** The server's session record this request came with (lib/auth/start-session.ts). */
  sessionId: string;
  /**
   * The account requires two-factor sign-in and this user has not turned it on: they may only enrol (the Profile
   * page and its endpoints), nothing else of the portal, the admin API or the live view.
   */
  mustEnrolTwoFactor: boolean;
}

/** What a session token claims: its user, account and session id (`sub`, `accountId`, `sid`). */
export interface SessionClaim {
  userId: unknown;
  accountId: unknown;
  sessionId: unknown;
}

// lastSeenAt (and with it the session's end) is written at most this often: one write a minute per active session,
// not one per request.
const TOUCH_AFTER_MS = 60_000;

/**
 * The one rule for whether a session still stands, for pages, routes and sockets alike: the session record the
 * token names exists, was not ended (sign-out, revoke, password change, user disabled) and has not expired; it
 * belongs to the token's user; that user is not disabled and still belongs to the session's account; the role is
 * the database's, not the token's; whether the account still waits for the user's two-factor enrolment. A token without a session id (from before sessions were recorded) is refused:
 * its user signs in again. One query per request. No next-auth imports here, so the socket server can use it.
 */
export async function activeUser(claim: SessionClaim, now = new Date()): Promise<ActiveUser | null> {
  const { userId, accountId, sessionId } = claim;
  if (typeof sessionId !== "string" || sessionId === "" || typeof userId !== "string") return null;
  const session = await db().portalSession.findUnique({
    where: { id: sessionId },
    select: {
      userId: true,
      accountId: true,
      lastSeenAt: true,
      expiresAt: true,
      revokedAt: true,
      user: {
        select: {
          id: true,
          email: true,
          name: true,
          accountId: true,
          role: true,
          disabledAt: true,
          account: { select: { requireTwoFactor: true } },
          twoFactor: { select: { enabledAt: true } },
        },
      },
    },
  });
  if (!session || session.revokedAt || session.expiresAt <= now) return null;
  const user = session.user;
  if (session.userId !== userId || user.disabledAt) return null;
  if (user.accountId !== accountId || session.accountId !== accountId) return null;
  if (now.getTime() - session.lastSeenAt.getTime() >= TOUCH_AFTER_MS) await touchSession(sessionId, now);
  return {
    id: user.id,
    email: user.email,
    name: user.name,
    accountId: user.accountId,
    role: user.role === "admin" ? "admin" : "agent",
    sessionId,
    mustEnrolTwoFactor: user.account.requireTwoFactor && user.twoFactor?.enabledAt == null,
  };
}

async function touchSession(sessionId: string, now: Date): Promise<void> {
  try {
    await db().portalSession.updateMany({
      // Only if no other request touched it meanwhile, and never bringing an ended session back.
      where: { id: sessionId, revokedAt: null, lastSeenAt: { lt: new Date(now.getTime() - TOUCH_AFTER_MS) } },
      data: { lastSeenAt: now, expiresAt: new Date(now.getTime() + SESSION_LIFETIME_SECONDS * 1000) },
    });
  } catch (error) {
    // A busy database delays "last seen"; it does not sign anyone out.
    logger().warn({ err: error }, "could not record a session's last use");
  }
}
