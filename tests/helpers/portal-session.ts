import type { RunningServer } from "./server";

/**
 * Signs in to the portal over HTTP as a browser does (next-auth's CSRF token, then the credentials callback) and
 * returns the Cookie header that carries the session, for admin API tests that act as a portal user. `userAgent`
 * is the browser the session is recorded with; `code` the two-factor code (or a recovery code) of a user who has
 * two-factor on.
 */
export async function portalCookie(
  server: RunningServer,
  email: string,
  password: string,
  options: { userAgent?: string; code?: string } = {},
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
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      cookie: cookie(),
      ...(options.userAgent ? { "user-agent": options.userAgent } : {}),
    },
    body: new URLSearchParams({
      csrfToken,
      email,
      password,
      ...(options.code === undefined ? {} : { code: options.code }),
      json: "true",
    }),
  });
  keep(signIn);
  if (![...jar.keys()].some((name) => name.endsWith("next-auth.session-token"))) {
    throw new Error(`portal sign-in as ${email} failed (HTTP ${signIn.status})`);
  }
  return cookie();
}

/**
 * Signs out as the portal's "Sign out" button does (next-auth's CSRF token, then POST /api/auth/signout) with the
 * Cookie header portalCookie returned; answers the Set-Cookie lines of the answer (the browser's cleared cookie).
 */
export async function portalSignOut(server: RunningServer, cookie: string): Promise<string[]> {
  const csrf = await fetch(`${server.baseUrl}/api/auth/csrf`, { headers: { cookie } });
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const signOut = await fetch(`${server.baseUrl}/api/auth/signout`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie },
    body: new URLSearchParams({ csrfToken, json: "true" }),
  });
  if (signOut.status >= 400) throw new Error(`portal sign-out failed (HTTP ${signOut.status})`);
  return signOut.headers.getSetCookie();
}

/** One sign-in attempt as the browser makes it; answers next-auth's error code, or null when a session was started. */
export async function attemptSignIn(
  server: RunningServer,
  email: string,
  password: string,
  code?: string,
): Promise<string | null> {
  const csrf = await fetch(`${server.baseUrl}/api/auth/csrf`);
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const cookie = csrf.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
  const res = await fetch(`${server.baseUrl}/api/auth/callback/credentials`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie },
    body: new URLSearchParams({ csrfToken, email, password, ...(code ? { code } : {}), json: "true" }),
  });
  if (res.headers.getSetCookie().some((c) => c.includes("next-auth.session-token="))) return null;
  const location = res.headers.get("location") ?? ((await res.json().catch(() => ({}))) as { url?: string }).url ?? "";
  return new URL(location, server.baseUrl).searchParams.get("error") ?? `HTTP ${res.status}`;
}
