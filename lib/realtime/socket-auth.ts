import type { IncomingMessage } from "node:http";
import { activeUser } from "../auth/active-user";
import { sessionTokenOf } from "../auth/session-token";

/**
 * The portal user of a socket.io handshake: the next-auth session cookie, then the same check as pages and routes
 * (lib/auth/active-user.ts). No session, no socket.
 */
export async function socketUser(
  request: IncomingMessage,
): Promise<{ id: string; accountId: string; sessionId: string; name: string } | null> {
  const token = await sessionTokenOf(request.headers.cookie);
  if (!token?.sub) return null;
  const user = await activeUser({ userId: token.sub, accountId: token.accountId, sessionId: token.sid });
  // A user the account requires two-factor of, who has not turned it on, may only enrol: no live view either.
  if (!user || user.mustEnrolTwoFactor) return null;
  return { id: user.id, accountId: user.accountId, sessionId: user.sessionId, name: user.name || user.email };
}
