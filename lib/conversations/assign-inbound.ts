import type { db } from "../db/client";
import { pickRoundRobin, reopensOnInbound } from "./assign-decisions";
import { announceUpdate, recordActivity } from "./conversation-status";

// What an inbound message does to its conversation's status and assignee, in the transaction that stores the
// message: it reopens a resolved or snoozed conversation, and, when the account hands new conversations out
// automatically, gives a new (or reopened) unassigned one to the next agent round-robin.

type Tx = Parameters<Parameters<ReturnType<typeof db>["$transaction"]>[0]>[0];

interface InboundConversation {
  id: string;
  accountId: string;
  status: string;
  assigneeId: string | null;
  snoozedUntil: Date | null;
  createdAt: Date;
}

/**
 * Called with the conversation as the inbound message's upsert left it (its row is locked by that write until the
 * transaction ends). Adds to `later` the live announcement of what changed, for after the commit.
 */
export async function applyInbound(
  tx: Tx,
  later: Set<() => void>,
  input: { conversation: InboundConversation; at: Date },
): Promise<void> {
  const { conversation, at } = input;
  const isNew = conversation.createdAt.getTime() === at.getTime();
  const reopen = reopensOnInbound(conversation.status, conversation.snoozedUntil);
  if (!reopen && !isNew) return;
  const state = { ...conversation, status: "open", snoozedUntil: null as Date | null };
  let activity: Awaited<ReturnType<typeof recordActivity>> | null = null;
  if (reopen) {
    await tx.conversation.update({ where: { id: conversation.id }, data: { status: "open", snoozedUntil: null } });
    activity = await recordActivity(tx, {
      accountId: conversation.accountId,
      conversationId: conversation.id,
      kind: "reopened",
      actorId: null,
      body: "new message",
      auditActor: "carrier",
      at,
    });
  }
  if (conversation.assigneeId === null) {
    const picked = await pickAgent(tx, conversation.accountId);
    if (picked) {
      await tx.conversation.update({ where: { id: conversation.id }, data: { assigneeId: picked } });
      state.assigneeId = picked;
      activity = await recordActivity(tx, {
        accountId: conversation.accountId,
        conversationId: conversation.id,
        kind: "assigned",
        actorId: null,
        targetId: picked,
        body: "round-robin",
        auditActor: "parley",
        at: new Date(at.getTime() + 1),
      });
    }
  }
  if (activity) {
    const last = activity;
    later.add(() => {
      announceUpdate(state, last, conversation.assigneeId).catch(() => {});
    });
  }
}

/** The next agent round-robin when the account assigns automatically, or null (off, or nobody has room). */
async function pickAgent(tx: Tx, accountId: string): Promise<string | null> {
  const account = await tx.account.findUnique({
    where: { id: accountId },
    select: { autoAssign: true, agentOpenLimit: true },
  });
  if (!account?.autoAssign) return null;
  const agents = await tx.user.findMany({
    where: { accountId, role: "agent", disabledAt: null },
    select: { id: true },
  });
  if (agents.length === 0) return null;
  const ids = agents.map((a) => a.id);
  const [open, last] = await Promise.all([
    tx.conversation.groupBy({
      by: ["assigneeId"],
      where: { accountId, status: "open", assigneeId: { in: ids } },
      _count: { _all: true },
    }),
    tx.conversationActivity.groupBy({
      by: ["targetId"],
      where: { accountId, kind: "assigned", actorId: null, targetId: { in: ids } },
      _max: { createdAt: true },
    }),
  ]);
  const openBy = new Map(open.map((o) => [o.assigneeId, o._count._all]));
  const lastBy = new Map(last.map((l) => [l.targetId, l._max.createdAt]));
  return pickRoundRobin(
    ids.map((userId) => ({ userId, open: openBy.get(userId) ?? 0, lastAssignedAt: lastBy.get(userId) ?? null })),
    account.agentOpenLimit,
  );
}
