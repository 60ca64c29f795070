import type { IncomingMessage } from "node:http";
import { getToken } from "next-auth/jwt";
import { sessionSecret } from "../env";
import { db } from "../db/client";

/**
 * The portal user of a socket.io handshake: the next-auth session cookie, decoded with the portal's secret exactly
 * as next-auth does for a page, then the user read again from the database (a disabled user, or one moved to
 * another account, is refused). No session, no socket.
 */
export async function socketUser(request: IncomingMessage): Promise<{ id: string; accountId: string } | null> {
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
  // As lib/auth/portal-session.ts does for pages (not imported here: it loads next-auth's page helpers).
  const user = await db().user.findUnique({
    where: { id: token.sub },
    select: { id: true, accountId: true, disabledAt: true },
  });
  if (!user || user.disabledAt || user.accountId !== token.accountId) return null;
  return { id: user.id, accountId: user.accountId };
}
