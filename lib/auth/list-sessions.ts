import { db } from "../db/client";
import { ApiError } from "../api/api-error";
import { describeUserAgent } from "./describe-user-agent";

// A user's open portal sessions as the Profile page (their own) and the Users page (an admin's view) list them.

export const sessionSelect = {
  id: true,
  createdAt: true,
  lastSeenAt: true,
  expiresAt: true,
  userAgent: true,
  ip: true,
} as const;

type SessionRow = { id: string; createdAt: Date; lastSeenAt: Date; expiresAt: Date; userAgent: string; ip: string };

export function sessionListing(row: SessionRow, currentSessionId?: string) {
  return {
    id: row.id,
    browser: describeUserAgent(row.userAgent),
    userAgent: row.userAgent,
    ip: row.ip,
    signedInAt: row.createdAt.toISOString(),
    lastSeenAt: row.lastSeenAt.toISOString(),
    expiresAt: row.expiresAt.toISOString(),
    current: row.id === currentSessionId,
  };
}
export type SessionListing = ReturnType<typeof sessionListing>;

/** The open sessions of a user of the account, most recently used first; another account's user is not found. */
export async function listUserSessions(input: { accountId: string; userId: string; currentSessionId?: string }) {
  const now = new Date();
  const user = await db().user.findFirst({
    where: { id: input.userId, accountId: input.accountId },
    select: {
      email: true,
      sessions: {
        where: { revokedAt: null, expiresAt: { gt: now }, accountId: input.accountId },
        orderBy: [{ lastSeenAt: "desc" }, { id: "asc" }],
        take: 100,
        select: sessionSelect,
      },
    },
  });
  if (!user) throw new ApiError("NotFound", { detail: `no user ${input.userId} in this account` });
  return { sessions: user.sessions.map((s) => sessionListing(s, input.currentSessionId)) };
}
