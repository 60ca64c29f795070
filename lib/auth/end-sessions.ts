import { db } from "../db/client";
import { ApiError } from "../api/api-error";
import { actorLabel, recordAudit, type ChangedBy } from "../audit/audit-trail";
import { disconnectSessions } from "../realtime/disconnect-sessions";
import { sessionListing, sessionSelect } from "./list-sessions";

// Ending portal sessions on the server: the record is marked revoked, so the next request with its token is refused
// (lib/auth/active-user.ts), and its live connections are closed. Ended records stay until the retention pass
// deletes them a day later.

type SessionWriter = Pick<ReturnType<typeof db>, "portalSession">;
type SessionWhere = NonNullable<Parameters<ReturnType<typeof db>["portalSession"]["updateMany"]>[0]>["where"];

/**
 * Marks every open session matching `where` revoked and answers their ids. Inside a transaction, the caller
 * disconnects their sockets (disconnectSessions) once it has committed.
 */
export async function revokeSessions(where: SessionWhere, client: SessionWriter = db()): Promise<string[]> {
  const open = await client.portalSession.findMany({ where: { ...where, revokedAt: null }, select: { id: true } });
  if (open.length === 0) return [];
  const ids = open.map((s) => s.id);
  await client.portalSession.updateMany({
    where: { id: { in: ids }, revokedAt: null },
    data: { revokedAt: new Date() },
  });
  return ids;
}

/** The audit trail's words for ended sessions: "1 session ended", "3 other sessions ended". */
export function sessionsEndedInWords(count: number, options: { other?: boolean } = {}): string {
  const other = options.other ? "other " : "";
  return count === 1 ? `1 ${other}session ended` : `${count} ${other}sessions ended`;
}

/** "Sign out": next-auth hands over the decoded token of the session being signed out. */
export async function endSignedOutSession(token: { sid?: unknown; sub?: unknown } | null | undefined) {
  if (typeof token?.sid !== "string" || typeof token.sub !== "string") return;
  const session = await db().portalSession.findFirst({
    where: { id: token.sid, userId: token.sub },
    select: { accountId: true, user: { select: { email: true } } },
  });
  if (!session) return;
  const ended = await revokeSessions({ id: token.sid, userId: token.sub });
  if (ended.length === 0) return;
  disconnectSessions(ended);
  await recordAudit({ accountId: session.accountId, actor: `user:${session.user.email}`, action: "signout" });
}

async function userOfAccount(accountId: string, userId: string) {
  const user = await db().user.findFirst({ where: { id: userId, accountId }, select: { id: true, email: true } });
  if (!user) throw new ApiError("NotFound", { detail: `no user ${userId} in this account` });
  return user;
}

/**
 * Ends one session of a user of the account (an admin on the Users page, or the user on their Profile page); a
 * session of another user or account is not found. Ending a session already ended changes nothing.
 */
export async function revokeUserSession(input: {
  accountId: string;
  userId: string;
  sessionId: string;
  by: ChangedBy;
}) {
  const user = await userOfAccount(input.accountId, input.userId);
  const session = await db().portalSession.findFirst({
    where: { id: input.sessionId, userId: user.id, user: { accountId: input.accountId } },
    select: sessionSelect,
  });
  if (!session) throw new ApiError("NotFound", { detail: `no session ${input.sessionId} of ${user.email}` });
  const ended = await revokeSessions({ id: session.id });
  if (ended.length > 0) {
    disconnectSessions(ended);
    await recordAudit({
      accountId: input.accountId,
      actor: actorLabel(input.by.actor),
      action: "session.revoked",
      target: user.email,
      detail: sessionListing(session).browser,
      ip: input.by.ip,
    });
  }
  return { ended: ended.length };
}

/** "Sign out everywhere": ends every session of a user of the account. */
export async function signOutEverywhere(input: { accountId: string; userId: string; by: ChangedBy }) {
  const user = await userOfAccount(input.accountId, input.userId);
  const ended = await revokeSessions({ userId: user.id });
  disconnectSessions(ended);
  await recordAudit({
    accountId: input.accountId,
    actor: actorLabel(input.by.actor),
    action: "user.signed_out_everywhere",
    target: user.email,
    detail: sessionsEndedInWords(ended.length),
    ip: input.by.ip,
  });
  return { ended: ended.length };
}
