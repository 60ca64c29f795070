import type { RunningServer } from "./server";

/**
 * Signs in to the portal over HTTP as a browser does (next-auth's CSRF token, then the credentials callback) and
 * returns the Cookie header that carries the session, for admin API tests that act as a portal user. `code` is the
 * two-factor code (or a recovery code) of a user who has two-factor on.
 */
export async function portalCookie(
  server: RunningServer,
  email: string,
  password: string,
  code?: string,
): Promise<string> {
  const csrf = await fetch(`${server.baseUrl}/api/auth/csrf`);
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const jar = new Map<string, string>();
  const keep = (response: Response) => {
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const at = pair!.indexOf("=");
      jar.set(pair!.slice(0, at), pair!.slice(at + 1));
    }
  };
  keep(csrf);
  const cookie = () => [...jar].map(([name, value]) => `${name}=${value}`).join("; ");
  const signIn = await fetch(`${server.baseUrl}/api/auth/callback/credentials`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: cookie() },
    body: new URLSearchParams({ csrfToken, email, password, ...(code === undefined ? {} : { code }), json: "true" }),
  });
  keep(signIn);
  if (![...jar.keys()].some((name) => name.endsWith("next-auth.session-token"))) {
    throw new Error(`portal sign-in as ${email} failed (HTTP ${signIn.status})`);
  }
  return cookie();
}
