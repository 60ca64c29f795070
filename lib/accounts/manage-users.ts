import { db } from "../db/client";
import { ApiError } from "../api/api-error";
import { actorLabel, recordAudit, type ChangedBy } from "../audit/audit-trail";
import { revokeSessions } from "../auth/end-sessions";
import { sessionListing, sessionSelect } from "../auth/list-sessions";
import { disconnectSessions } from "../realtime/disconnect-sessions";
import type { UserChangeInput } from "./user-schema";

// The account's portal users as its admins manage them (createUser is in manage-accounts.ts, shared with the CLI).
// A disabled user cannot sign in, and their sessions are ended at once (lib/auth/end-sessions.ts); a role change
// counts from the next request (lib/auth/active-user.ts reads the user again every time).

const userSelect = {
  id: true,
  email: true,
  name: true,
  role: true,
  disabledAt: true,
  lastSignInAt: true,
  createdAt: true,
  twoFactor: { select: { enabledAt: true } },
} as const;

type UserRow = {
  id: string;
  email: string;
  name: string;
  role: string;
  disabledAt: Date | null;
  lastSignInAt: Date | null;
  createdAt: Date;
  twoFactor?: { enabledAt: Date | null } | null;
};

/** A user as the admin API and the portal list it: never the password hash. */
export function userListing(row: UserRow) {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    role: row.role === "admin" ? ("admin" as const) : ("agent" as const),
    state: row.disabledAt ? ("disabled" as const) : ("active" as const),
    disabledAt: row.disabledAt?.toISOString() ?? null,
    lastSignInAt: row.lastSignInAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
    // on: asked at sign-in; pending: set up but never confirmed with a code (an admin can reset either).
    twoFactor: !row.twoFactor ? ("off" as const) : row.twoFactor.enabledAt ? ("on" as const) : ("pending" as const),
  };
}
export type UserListing = ReturnType<typeof userListing>;

/**
 * One page of the account's users, oldest first (the account's first admin on top), with the total; each with
 * their open portal sessions, most recently used first.
 */
export async function listUsers(input: { accountId: string; start: number; count: number; currentSessionId?: string }) {
  const where = { accountId: input.accountId };
  const open = { revokedAt: null, expiresAt: { gt: new Date() }, accountId: input.accountId };
  const [rows, total] = await Promise.all([
    db().user.findMany({
      where,
      orderBy: [{ createdAt: "asc" }, { id: "asc" }],
      skip: input.start,
      take: input.count,
      select: {
        ...userSelect,
        sessions: { where: open, orderBy: [{ lastSeenAt: "desc" }, { id: "asc" }], take: 20, select: sessionSelect },
      },
    }),
    db().user.count({ where }),
  ]);
  const users = rows.map((row) => ({
    ...userListing(row),
    sessions: row.sessions.map((s) => sessionListing(s, input.currentSessionId)),
  }));
  return { total, start: input.start, count: input.count, users };
}

const invalid = (detail: string, field: string) => new ApiError("InvalidRequest", { detail, field });

/**
 * Changes a user's role, name or whether they are disabled. An admin cannot disable themself, and the account
 * always keeps one active admin: the last one can be neither demoted nor disabled. The check runs after the
 * update inside the transaction, so two admins demoting each other at once cannot both succeed on SQLite (one
 * writer at a time); on PostgreSQL the window is the few milliseconds between the two transactions' counts.
 */
export async function updateUser(input: {
  accountId: string;
  userId: string;
  changes: UserChangeInput;
  by: ChangedBy;
}) {
  const { changes, by } = input;
  const actorUserId = by.actor !== "cli" && by.actor.kind === "user" ? by.actor.userId : null;
  if (changes.disabled === true && actorUserId === input.userId) {
    throw invalid("you cannot disable yourself; another admin of the account can", "disabled");
  }
  const ended: string[] = [];
  const listing = await db().$transaction(async (tx) => {
    const user = await tx.user.findFirst({
      where: { id: input.userId, accountId: input.accountId },
      select: userSelect,
    });
    if (!user) throw new ApiError("NotFound", { detail: `no user ${input.userId} in this account` });

    const data: { role?: string; name?: string; disabledAt?: Date | null } = {};
    const described: string[] = [];
    if (changes.role !== undefined && changes.role !== user.role) {
      data.role = changes.role;
      described.push(`role ${user.role} → ${changes.role}`);
    }
    if (changes.name !== undefined && changes.name !== user.name) {
      data.name = changes.name;
      described.push(`name "${user.name}" → "${changes.name}"`);
    }
    if (changes.disabled !== undefined && changes.disabled !== (user.disabledAt !== null)) {
      data.disabledAt = changes.disabled ? new Date() : null;
      described.push(changes.disabled ? "disabled" : "enabled");
    }
    if (described.length === 0) return userListing(user);

    const updated = await tx.user.update({ where: { id: user.id }, data, select: userSelect });
    const wasActiveAdmin = user.role === "admin" && user.disabledAt === null;
    const isActiveAdmin = updated.role === "admin" && updated.disabledAt === null;
    if (wasActiveAdmin && !isActiveAdmin) {
      const admins = await tx.user.count({ where: { accountId: input.accountId, role: "admin", disabledAt: null } });
      if (admins === 0) {
        throw invalid(
          `${user.email} is the account's last active admin: make another user an admin first`,
          data.role !== undefined ? "role" : "disabled",
        );
      }
    }
    if (data.disabledAt) ended.push(...(await revokeSessions({ userId: user.id }, tx)));
    await recordAudit(
      {
        accountId: input.accountId,
        actor: actorLabel(by.actor),
        action: "user.updated",
        target: user.email,
        detail: described.join("; "),
        ip: by.ip,
      },
      tx,
    );
    return userListing(updated);
  });
  disconnectSessions(ended);
  return listing;
}
