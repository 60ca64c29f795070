// The team inbox's decisions, with no database and no server imports (the browser imports them too): who may see a
// conversation, who may assign it to whom, who gets the next one round-robin, and how an activity reads. The
// service (conversation-status.ts) loads the facts, asks here, then applies and records the answer.

export type StaffRole = "admin" | "agent";
export type Visibility = "all" | "assigned";
export type ConversationStatus = "open" | "resolved";
export type ActivityKind = "assigned" | "unassigned" | "resolved" | "reopened" | "snoozed" | "note";

export const VISIBILITIES = ["all", "assigned"] as const;

export interface Viewer {
  userId: string;
  role: StaffRole;
}

/**
 * Admins see everything; agents see everything while the account shows them all conversations (the default), and
 * otherwise only theirs and the unassigned ones.
 */
export function canSee(viewer: Viewer, visibility: Visibility, assigneeId: string | null): boolean {
  if (viewer.role === "admin" || visibility === "all") return true;
  return assigneeId === null || assigneeId === viewer.userId;
}

export type AssignVerdict = { ok: true; change: boolean } | { ok: false; reason: string };

/**
 * Whether `actor` may give the conversation (now with `current`) to `target` (null: unassigned). Admins may assign
 * anyone and reassign; an agent may take an unassigned conversation for themselves and hand back their own, but
 * never assign someone else nor take one another staff member has. `change: false` when nothing would change.
 */
export function decideAssign(actor: Viewer, current: string | null, target: string | null): AssignVerdict {
  if (current === target) return { ok: true, change: false };
  if (actor.role === "admin") return { ok: true, change: true };
  if (target !== null && target !== actor.userId)
    return { ok: false, reason: "an agent can only assign a conversation to themselves" };
  if (target === actor.userId && current !== null)
    return { ok: false, reason: "this conversation is already assigned to someone else; an admin can reassign it" };
  if (target === null && current !== actor.userId)
    return { ok: false, reason: "an agent can only unassign their own conversations" };
  return { ok: true, change: true };
}

/** A reply to an unassigned conversation assigns it to whoever replied; an assigned one keeps its assignee. */
export function assigneeAfterReply(current: string | null, replier: string): string | null {
  return current ?? replier;
}

/** A new inbound message reopens a resolved conversation and ends a snooze. */
export function reopensOnInbound(status: string, snoozedUntil: Date | null): boolean {
  return status !== "open" || snoozedUntil !== null;
}

export interface RoundRobinCandidate {
  userId: string;
  /** Open conversations assigned to them now. */
  open: number;
  /** When they were last given one automatically (null: never). */
  lastAssignedAt: Date | null;
}

/** Whether an agent has room for one more open conversation (`limit` 0: no limit). */
export function hasCapacity(open: number, limit: number): boolean {
  return limit <= 0 || open < limit;
}

/**
 * The next agent round-robin: among those under the open-conversation limit, the one given a conversation
 * automatically longest ago (never first), then the one with fewest open, then by id so the choice is stable.
 * Null when nobody has room: the conversation stays unassigned.
 */
export function pickRoundRobin(candidates: RoundRobinCandidate[], limit: number): string | null {
  const room = candidates.filter((c) => hasCapacity(c.open, limit));
  room.sort((a, b) => {
    const at = (c: RoundRobinCandidate) => c.lastAssignedAt?.getTime() ?? -Infinity;
    if (at(a) !== at(b)) return at(a) < at(b) ? -1 : 1;
    if (a.open !== b.open) return a.open - b.open;
    return a.userId < b.userId ? -1 : a.userId > b.userId ? 1 : 0;
  });
  return room[0]?.userId ?? null;
}

/** The conversations a list view keeps: Mine, Unassigned and All count open ones; Resolved the resolved ones. */
export const CONVERSATION_VIEWS = ["mine", "unassigned", "all", "snoozed", "resolved"] as const;
export type ConversationView = (typeof CONVERSATION_VIEWS)[number];

export const VIEW_LABELS: Record<ConversationView, string> = {
  mine: "Mine",
  unassigned: "Unassigned",
  all: "All",
  snoozed: "Snoozed",
  resolved: "Resolved",
};

/** How an activity line of the thread reads: "Ana assigned this to Ben", "Ben resolved this". */
export function describeActivity(a: {
  kind: string;
  actorName: string | null;
  targetName: string | null;
  selfAssigned?: boolean;
  until?: string;
}): string {
  const who = a.actorName ?? "Parley";
  const target = a.targetName ?? "someone";
  switch (a.kind) {
    case "assigned":
      if (a.actorName === null) return `Assigned to ${target} automatically`;
      return a.selfAssigned ? `${who} took this` : `${who} assigned this to ${target}`;
    case "unassigned":
      return `${who} unassigned this`;
    case "resolved":
      return `${who} resolved this`;
    case "reopened":
      return a.actorName === null ? "Reopened by a new message" : `${who} reopened this`;
    case "snoozed":
      return `${who} snoozed this${a.until ? ` until ${a.until}` : ""}`;
    default:
      return `${who}: ${a.kind}`;
  }
}
