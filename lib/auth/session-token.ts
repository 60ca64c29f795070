import { getToken, type JWT } from "next-auth/jwt";
import { sessionSecret } from "../env";

/**
 * The portal session token of a Cookie header, decoded with the portal's secret exactly as next-auth does for a
 * page, or null when there is none or it does not verify. For code outside Next's request handling: the socket.io
 * handshake and the server's own request checks.
 */
export async function sessionTokenOf(cookieHeader: string | undefined): Promise<JWT | null> {
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
  return getToken({
    req: { headers: { cookie: cookieHeader }, cookies } as never,
    secret: sessionSecret(),
    secureCookie: secure,
  });
}
