import type { IncomingMessage } from "node:http";
import { getToken } from "next-auth/jwt";
import { sessionSecret } from "../env";
import { activeUser } from "../auth/active-user";

/**
 * The portal user of a socket.io handshake: the next-auth session cookie, decoded with the portal's secret exactly
 * as next-auth does for a page, then the same check as pages and routes (lib/auth/active-user.ts). No session, no
 * socket.
 */
export async function socketUser(
  request: IncomingMessage,
): Promise<{ id: string; accountId: string; sessionId: string } | null> {
  const cookieHeader = request.headers.cookie ?? "";
  if (!cookieHeader) return null;
  const cookies = Object.fromEntries(
    cookieHeader.split(";").flatMap((part) => {
      const at = part.indexOf("=");
      if (at < 0) return [];
      try {
        return [[part.slice(0, at).trim(), decodeURIComponent(part.slice(at + 1).trim())]];
      } catch {
        return [];
      }
    }),
  );
  const secure = Object.keys(cookies).some((name) => name.startsWith("__Secure-next-auth.session-token"));
  const token = await getToken({
    req: { headers: { cookie: cookieHeader }, cookies } as never,
    secret: sessionSecret(),
    secureCookie: secure,
  });
  if (!token?.sub) return null;
  const user = await activeUser({ userId: token.sub, accountId: token.accountId, sessionId: token.sid });
  return user && { id: user.id, accountId: user.accountId, sessionId: user.sessionId };
}
