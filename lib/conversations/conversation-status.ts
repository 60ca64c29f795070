import { ApiError } from "../api/api-error";
import { recordAudit, type AuditAction } from "../audit/audit-trail";
import { db } from "../db/client";
import { uuidv7 } from "../db/ids";
import type { ActivityView, ConversationUpdate } from "../realtime/change-schema";
import { announceConversationUpdate } from "../realtime/start-realtime";
import {
  assigneeAfterReply,
  canSee,
  decideAssign,
  type ActivityKind,
  type StaffRole,
  type Viewer,
  type Visibility,
} from "./assign-decisions";

// Applies and records the team inbox's changes (assign, unassign, resolve, reopen, snooze): each one is the
// conversation's new state, an activity entry of the thread and an audit event, written in one transaction, then
// announced live. The decisions themselves are in assign-decisions.ts.

type Tx = Parameters<Parameters<ReturnType<typeof db>["$transaction"]>[0]>[0];
type Client = ReturnType<typeof db> | Tx;

/** The viewer of the inbox: their role and what the account lets agents see. */
export interface InboxViewer extends Viewer {
  visibility: Visibility;
}

export interface InboxActor extends InboxViewer {
  /** For the audit trail: who acted (user:email) and from where. */
  email: string;
  ip?: string;
}

/** The signed-in user as the inbox sees them; a user of another account (or none) is not found. */
export async function inboxViewer(accountId: string, userId: string): Promise<InboxViewer & { email: string }> {
  const user = await db().user.findFirst({
    where: { id: userId, accountId },
    select: { role: true, email: true, account: { select: { conversationVisibility: true } } },
  });
  if (!user) throw new ApiError("Forbidden", { detail: "conversations are for the account's staff" });
  return {
    userId,
    email: user.email,
    role: user.role === "admin" ? "admin" : "agent",
    visibility: user.account.conversationVisibility === "assigned" ? "assigned" : "all",
  };
}

/** A conversation of the account the viewer may see; any other (another account's, hidden from them) is 404. */
export async function findVisibleConversation(accountId: string, conversationId: string, viewer?: InboxViewer) {
  // The tenant check is in the where: another account's conversation is not found.
  const conversation = await db().conversation.findFirst({ where: { id: conversationId, accountId } });
  if (!conversation || (viewer && !canSee(viewer, viewer.visibility, conversation.assigneeId)))
    throw new ApiError("NotFound", { detail: "no such conversation in this account" });
  return conversation;
}

/** The names of staff members by id (activity lines, the assignee of a row); a user since removed reads as null. */
export async function staffNames(accountId: string, ids: (string | null)[]): Promise<Map<string, string>> {
  const wanted = [...new Set(ids.filter((id): id is string => id !== null))];
  if (wanted.length === 0) return new Map();
  const users = await db().user.findMany({
    where: { accountId, id: { in: wanted } },
    select: { id: true, name: true, email: true },
  });
  return new Map(users.map((u) => [u.id, u.name || u.email]));
}

/** The thread's activity, oldest first, with the names it reads with. */
export async function conversationActivity(accountId: string, conversationId: string): Promise<ActivityView[]> {
  const rows = await db().conversationActivity.findMany({
    where: { accountId, conversationId, kind: { not: "note" } },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    take: 500,
  });
  const names = await staffNames(
    accountId,
    rows.flatMap((r) => [r.actorId, r.targetId]),
  );
  return rows.map((r) => toActivityView(r, names));
}

type ActivityRow = Awaited<ReturnType<Tx["conversationActivity"]["create"]>>;

function toActivityView(r: ActivityRow, names: Map<string, string>): ActivityView {
  return {
    id: r.id,
    conversationId: r.conversationId,
    kind: r.kind as ActivityView["kind"],
    actorId: r.actorId,
    actorName: r.actorId ? (names.get(r.actorId) ?? null) : null,
    targetId: r.targetId,
    targetName: r.targetId ? (names.get(r.targetId) ?? null) : null,
    body: r.body,
    createdAt: r.createdAt.toISOString(),
  };
}

const AUDIT: Record<Exclude<ActivityKind, "note">, AuditAction> = {
  assigned: "conversation.assigned",
  unassigned: "conversation.unassigned",
  resolved: "conversation.resolved",
  reopened: "conversation.reopened",
  snoozed: "conversation.snoozed",
};

/** Writes one activity entry and its audit event (in the caller's transaction). */
export async function recordActivity(
  tx: Client,
  entry: {
    accountId: string;
    conversationId: string;
    kind: Exclude<ActivityKind, "note">;
    actorId: string | null;
    targetId?: string | null;
    body?: string;
    auditActor: string;
    ip?: string;
    at?: Date;
  },
): Promise<ActivityRow> {
  const at = entry.at ?? new Date();
  const row = await tx.conversationActivity.create({
    data: {
      id: uuidv7(at.getTime()),
      accountId: entry.accountId,
      conversationId: entry.conversationId,
      kind: entry.kind,
      actorId: entry.actorId,
      targetId: entry.targetId ?? null,
      body: entry.body ?? "",
      createdAt: at,
    },
  });
  await recordAudit(
    {
      accountId: entry.accountId,
      actor: entry.auditActor,
      action: AUDIT[entry.kind],
      target: `conversation:${entry.conversationId}`,
      detail: [entry.targetId ? `to ${entry.targetId}` : "", entry.body ?? ""].filter(Boolean).join(" "),
      ip: entry.ip,
    },
    tx,
  );
  return row;
}

type ConversationRow = NonNullable<Awaited<ReturnType<Tx["conversation"]["findFirst"]>>>;

/**
 * The live event of a change, sent to those who may see the conversation: the whole account while agents see
 * every conversation; otherwise its admins and whoever had or has it (or everyone, while it was or is unassigned).
 */
export async function announceUpdate(
  row: Pick<ConversationRow, "id" | "accountId" | "status" | "assigneeId" | "snoozedUntil">,
  activity: ActivityRow | null,
  previousAssignee: string | null,
): Promise<ConversationUpdate> {
  const names = await staffNames(row.accountId, [
    row.assigneeId,
    activity?.actorId ?? null,
    activity?.targetId ?? null,
  ]);
  const update: ConversationUpdate = {
    conversationId: row.id,
    status: row.status === "resolved" ? "resolved" : "open",
    assigneeId: row.assigneeId,
    assigneeName: row.assigneeId ? (names.get(row.assigneeId) ?? null) : null,
    snoozedUntil: row.snoozedUntil?.toISOString() ?? null,
    activity: activity ? toActivityView(activity, names) : null,
  };
  const account = await db().account.findUnique({
    where: { id: row.accountId },
    select: { conversationVisibility: true },
  });
  let audience: "account" | string[] = "account";
  if (account?.conversationVisibility === "assigned" && row.assigneeId !== null && previousAssignee !== null) {
    const admins = await db().user.findMany({
      where: { accountId: row.accountId, role: "admin" },
      select: { id: true },
    });
    audience = [...new Set([...admins.map((a) => a.id), row.assigneeId, previousAssignee])];
  }
  announceConversationUpdate(row.accountId, update, audience);
  return update;
}

function auditActor(actor: InboxActor): string {
  return `user:${actor.email}`;
}

/**
 * Gives the conversation to `assigneeId` (a staff member of the account) or leaves it unassigned (null), as
 * decideAssign allows: admins anyone, an agent only an unassigned one for themselves (or back their own).
 */
export async function assignConversation(input: {
  accountId: string;
  actor: InboxActor;
  conversationId: string;
  assigneeId: string | null;
}): Promise<ConversationUpdate> {
  const { accountId, actor } = input;
  const conversation = await findVisibleConversation(accountId, input.conversationId, actor);
  if (input.assigneeId !== null) {
    const staff = await db().user.findFirst({
      where: { id: input.assigneeId, accountId, disabledAt: null },
      select: { id: true },
    });
    if (!staff)
      throw new ApiError("InvalidRequest", { detail: "no such staff member in this account", field: "assigneeId" });
  }
  const verdict = decideAssign(actor, conversation.assigneeId, input.assigneeId);
  if (!verdict.ok) throw new ApiError("Forbidden", { detail: verdict.reason });
  if (!verdict.change) return announceUpdate(conversation, null, conversation.assigneeId);
  const result = await db().$transaction(async (tx) => {
    // Only if nobody changed it since it was read: two agents taking the same conversation, one gets it.
    const moved = await tx.conversation.updateMany({
      where: { id: conversation.id, accountId, assigneeId: conversation.assigneeId },
      data: { assigneeId: input.assigneeId },
    });
    if (moved.count !== 1)
      throw new ApiError("Forbidden", {
        detail: "someone else changed its assignment meanwhile; reload and try again",
      });
    const activity = await recordActivity(tx, {
      accountId,
      conversationId: conversation.id,
      kind: input.assigneeId === null ? "unassigned" : "assigned",
      actorId: actor.userId,
      targetId: input.assigneeId ?? conversation.assigneeId,
      auditActor: auditActor(actor),
      ip: actor.ip,
    });
    return { activity };
  });
  return announceUpdate({ ...conversation, assigneeId: input.assigneeId }, result.activity, conversation.assigneeId);
}

/** Resolves or reopens the conversation (any staff member who may see it); reopening also ends a snooze. */
export async function setConversationStatus(input: {
  accountId: string;
  actor: InboxActor;
  conversationId: string;
  status: "open" | "resolved";
}): Promise<ConversationUpdate> {
  const { accountId, actor } = input;
  const conversation = await findVisibleConversation(accountId, input.conversationId, actor);
  if (conversation.status === input.status && (input.status === "resolved" || conversation.snoozedUntil === null))
    return announceUpdate(conversation, null, conversation.assigneeId);
  const activity = await db().$transaction(async (tx) => {
    await tx.conversation.update({
      where: { id: conversation.id },
      data: { status: input.status, snoozedUntil: null },
    });
    return recordActivity(tx, {
      accountId,
      conversationId: conversation.id,
      kind: input.status === "resolved" ? "resolved" : "reopened",
      actorId: actor.userId,
      auditActor: auditActor(actor),
      ip: actor.ip,
    });
  });
  return announceUpdate(
    { ...conversation, status: input.status, snoozedUntil: null },
    activity,
    conversation.assigneeId,
  );
}

/** Snoozes the conversation until `until`: it stays open; a new inbound message ends the snooze. */
export async function snoozeConversation(input: {
  accountId: string;
  actor: InboxActor;
  conversationId: string;
  until: Date;
}): Promise<ConversationUpdate> {
  const { accountId, actor } = input;
  const conversation = await findVisibleConversation(accountId, input.conversationId, actor);
  if (input.until.getTime() <= Date.now())
    throw new ApiError("InvalidRequest", { detail: "a snooze ends in the future", field: "until" });
  const activity = await db().$transaction(async (tx) => {
    await tx.conversation.update({
      where: { id: conversation.id },
      data: { status: "open", snoozedUntil: input.until },
    });
    return recordActivity(tx, {
      accountId,
      conversationId: conversation.id,
      kind: "snoozed",
      actorId: actor.userId,
      body: input.until.toISOString(),
      auditActor: auditActor(actor),
      ip: actor.ip,
    });
  });
  return announceUpdate(
    { ...conversation, status: "open", snoozedUntil: input.until },
    activity,
    conversation.assigneeId,
  );
}

/** After a staff member's reply: an unassigned conversation becomes theirs (one who replies has taken it). */
export async function assignOnReply(input: {
  accountId: string;
  userId: string;
  email: string;
  conversationId: string;
}): Promise<void> {
  const conversation = await db().conversation.findFirst({
    where: { id: input.conversationId, accountId: input.accountId },
  });
  if (!conversation || assigneeAfterReply(conversation.assigneeId, input.userId) === conversation.assigneeId) return;
  const activity = await db().$transaction(async (tx) => {
    const moved = await tx.conversation.updateMany({
      where: { id: conversation.id, accountId: input.accountId, assigneeId: null },
      data: { assigneeId: input.userId },
    });
    if (moved.count !== 1) return null;
    return recordActivity(tx, {
      accountId: input.accountId,
      conversationId: conversation.id,
      kind: "assigned",
      actorId: input.userId,
      targetId: input.userId,
      body: "replied",
      auditActor: `user:${input.email}`,
    });
  });
  if (activity) await announceUpdate({ ...conversation, assigneeId: input.userId }, activity, null);
}

export type { StaffRole };

/** The staff a conversation can be assigned to: the account's enabled users, by name. */
export async function listStaff(accountId: string) {
  const users = await db().user.findMany({
    where: { accountId, disabledAt: null },
    select: { id: true, name: true, email: true, role: true },
    orderBy: [{ name: "asc" }, { email: "asc" }],
  });
  return users.map((u) => ({ id: u.id, name: u.name || u.email, role: u.role === "admin" ? "admin" : "agent" }));
}
