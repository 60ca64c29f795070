import type { NextAuthOptions } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import { z } from "zod";
import { db } from "../db/client";
import { verifyPassword } from "./passwords";
import { blockedUntil, clearSignInFailures, recordSignInFailure, throttleKeys } from "./sign-in-throttle";
import { recordAudit } from "../audit/audit-trail";
import { CLIENT_IP_HEADER } from "./client-ip";
import { checkSignInSecondFactor } from "./two-factor-sign-in";
import { SESSION_LIFETIME_SECONDS, startPortalSession } from "./start-session";
import { endSignedOutSession } from "./end-sessions";

// Portal sign-in: email and password of a portal user, JWT sessions. Portal sessions never authenticate the
// REST API, and API keys never the portal (the decision).
const credentials = z.object({
  email: z.string().trim().toLowerCase().pipe(z.email()),
  password: z.string().min(1).max(200),
});

export interface PortalUser {
  id: string;
  email: string;
  name: string;
  accountId: string;
  role: "admin" | "agent";
  /** The server's record of this sign-in (lib/auth/start-session.ts): the token's `sid`. */
  sessionId: string;
}

/** A sign-in refused for too many failures: its message is what the sign-in form shows. */
export class SignInThrottled extends Error {
  constructor(readonly until: Date) {
    const seconds = Math.max(1, Math.ceil((until.getTime() - Date.now()) / 1000));
    const wait =
      seconds >= 90 ? `${Math.ceil(seconds / 60)} minutes` : seconds === 1 ? "1 second" : `${seconds} seconds`;
    super(`Too many failed sign-ins. Try again in ${wait}.`);
    this.name = "SignInThrottled";
  }
}

/**
 * Checks an email and password. Failures are throttled per email and per client address (a growing delay, then a
 * lock: lib/auth/sign-in-throttle.ts) and every outcome goes into the account's audit trail.
 */
export async function authorizePortalUser(input: unknown, ip = "", userAgent = ""): Promise<PortalUser | null> {
  const parsed = credentials.safeParse(input);
  if (!parsed.success) return null;
  const { email, password } = parsed.data;
  const keys = throttleKeys(email, ip);
  const blocked = await blockedUntil(keys);
  const user = await db().user.findUnique({ where: { email } });
  if (blocked) {
    await recordAudit({ accountId: user?.accountId ?? null, actor: "", action: "signin.locked", target: email, ip });
    throw new SignInThrottled(blocked);
  }
  // Verify against a dummy hash when the user is unknown, so timing does not tell which emails exist.
  const hash =
    user?.passwordHash ?? "scrypt$32768$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
  const ok = await verifyPassword(password, hash);
  if (!user || !ok || user.disabledAt) {
    const { locked } = await recordSignInFailure(keys);
    const detail = !user ? "unknown email" : user.disabledAt && ok ? "user disabled" : "wrong password";
    await recordAudit({
      accountId: user?.accountId ?? null,
      actor: "",
      action: "signin.failed",
      target: email,
      detail: locked ? `${detail}; locked` : detail,
      ip,
    });
    return null;
  }
  const secondFactor = await checkSignInSecondFactor({ user, credentials: input, throttleKeys: keys, ip });
  await clearSignInFailures(email);
  await db().user.update({ where: { id: user.id }, data: { lastSignInAt: new Date() } });
  await recordAudit({
    accountId: user.accountId,
    actor: `user:${user.email}`,
    action: "signin.succeeded",
    ip,
    ...secondFactor,
  });
  const sessionId = await startPortalSession({ userId: user.id, accountId: user.accountId, ip, userAgent });
  return {
    id: user.id,
    email: user.email,
    name: user.name,
    accountId: user.accountId,
    role: user.role === "admin" ? "admin" : "agent",
    sessionId,
  };
}

/**
 * A request header as next-auth hands authorize the request (headers as an object): the client address server.ts
 * put on it (CLIENT_IP_HEADER), or the browser's User-Agent for the session lists.
 */
function headerOf(req: { headers?: unknown } | undefined, name: string): string {
  const headers = req?.headers as Record<string, string | string[] | undefined> | Headers | undefined;
  const value = headers instanceof Headers ? headers.get(name) : headers?.[name];
  return (Array.isArray(value) ? value[0] : value) ?? "";
}

export const authOptions: NextAuthOptions = {
  session: { strategy: "jwt", maxAge: SESSION_LIFETIME_SECONDS },
  pages: { signIn: "/login" },
  providers: [
    CredentialsProvider({
      name: "Email and password",
      credentials: { email: { label: "Email", type: "email" }, password: { label: "Password", type: "password" } },
      authorize: (input, req) =>
        authorizePortalUser(input, headerOf(req, CLIENT_IP_HEADER), headerOf(req, "user-agent")),
    }),
  ],
  callbacks: {
    jwt({ token, user }) {
      if (user) {
        const portalUser = user as unknown as PortalUser;
        token.accountId = portalUser.accountId;
        token.role = portalUser.role;
        token.sid = portalUser.sessionId;
      }
      return token;
    },
    session({ session, token }) {
      return {
        ...session,
        user: { ...session.user, id: token.sub, accountId: token.accountId, role: token.role, sessionId: token.sid },
      };
    },
  },
  events: {
    // next-auth awaits this before it clears the cookie (core/routes/signout.js): the session is ended on the server
    // first, so a copy of the cookie is refused from then on.
    signOut: ({ token }) => endSignedOutSession(token),
  },
};

export interface PortalSession {
  user: {
    id: string;
    email: string;
    name?: string | null;
    accountId: string;
    role: "admin" | "agent";
    sessionId: string;
  };
}
