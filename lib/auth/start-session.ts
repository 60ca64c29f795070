import { randomBytes } from "node:crypto";
import { db } from "../db/client";

// How long a portal session lasts without being used: the session token's maxAge (auth-options.ts) and the server's
// record alike. Each use moves the record's end (at most once a minute, lib/auth/active-user.ts), as next-auth
// renews the token.
export const SESSION_LIFETIME_SECONDS = 12 * 60 * 60;

/** The server's record of a sign-in that just succeeded; answers its id, which the session token carries as `sid`. */
export async function startPortalSession(input: {
  userId: string;
  accountId: string;
  ip: string;
  userAgent: string;
}): Promise<string> {
  const now = new Date();
  const id = randomBytes(32).toString("base64url");
  await db().portalSession.create({
    data: {
      id,
      userId: input.userId,
      accountId: input.accountId,
      createdAt: now,
      lastSeenAt: now,
      expiresAt: new Date(now.getTime() + SESSION_LIFETIME_SECONDS * 1000),
      userAgent: input.userAgent.slice(0, 512),
      ip: input.ip.slice(0, 100),
    },
  });
  return id;
}
