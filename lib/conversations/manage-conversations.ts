import { ApiError } from "../api/api-error";
import { db } from "../db/client";
import { POSSIBLE_OPT_OUT } from "../opt/apply-opt-keyword";
import { sendWithIdempotency } from "../messaging/send-with-idempotency";
import type { MessageInfo } from "../messaging/send-message";
import type { ConversationFilters } from "./conversation-schema";
import { readConversationList } from "./conversation-queries";
import { currentPosition, threadMessageSelect, toThreadMessages } from "./thread-messages";

export interface ConversationSummary {
  id: string;
  accountNumber: string;
  remoteNumber: string;
  lastMessageAt: string;
  preview: { body: string; direction: string; media: number; status: string } | null;
  unread: number;
  optedOut: boolean;
  possibleOptOut: boolean;
}

/**
 * The account's conversations, newest activity first, with the viewer's unread count (inbound messages after their
 * read marker), the last message, and the opt-out state of the phone. `q` matches the phone's digits or any text of
 * the conversation; `filter: "unread"` keeps those with something unread.
 */
export async function listConversations(input: { accountId: string; userId: string; filters: ConversationFilters }) {
  const { accountId, filters } = input;
  const { rows, total } = await readConversationList(input);
  const ids = rows.map((r) => r.id);
  const [lasts, optOuts, flags] = await Promise.all([
    Promise.all(
      ids.map((id) =>
        db().message.findFirst({
          where: { conversationId: id },
          orderBy: [{ createdAt: "desc" }, { id: "desc" }],
          select: { body: true, direction: true, media: true, status: true },
        }),
      ),
    ),
    db().optState.findMany({
      where: { accountId, number: { in: rows.map((r) => r.remoteNumber) }, status: "out" },
      select: { number: true },
    }),
    db().messageFlag.findMany({
      where: { accountId, conversationId: { in: ids }, kind: POSSIBLE_OPT_OUT },
      select: { conversationId: true },
    }),
  ]);
  const out = new Set(optOuts.map((o) => o.number));
  const flagged = new Set(flags.map((f) => f.conversationId));
  const conversations: ConversationSummary[] = rows.map((row, i) => {
    const last = lasts[i];
    return {
      id: row.id,
      accountNumber: row.accountNumber,
      remoteNumber: row.remoteNumber,
      lastMessageAt: new Date(row.lastMessageAt).toISOString(),
      preview: last
        ? { body: last.body, direction: last.direction, status: last.status, media: mediaCount(last.media) }
        : null,
      unread: Number(row.unread),
      optedOut: out.has(row.remoteNumber),
      possibleOptOut: flagged.has(row.id) && !out.has(row.remoteNumber),
    };
  });
  return { conversations, total, start: filters.start, count: filters.count };
}

function mediaCount(json: string): number {
  try {
    const v = JSON.parse(json) as unknown;
    return Array.isArray(v) ? v.length : 0;
  } catch {
    return 0;
  }
}

async function findConversation(accountId: string, conversationId: string) {
  // The tenant check is in the where: another account's conversation is not found.
  const conversation = await db().conversation.findFirst({ where: { id: conversationId, accountId } });
  if (!conversation) throw new ApiError("NotFound", { detail: "no such conversation in this account" });
  return conversation;
}

const THREAD_LIMIT = 300;

/** One conversation as the thread shows it: its messages (the newest 300), opt state and flags, and its position. */
export async function getThread(input: { accountId: string; userId: string; conversationId: string }) {
  const { accountId, conversationId } = input;
  // The position first: anything that changes while the rest is read comes again through the live feed.
  const position = await currentPosition(accountId);
  const conversation = await findConversation(accountId, conversationId);
  const rows = await db().message.findMany({
    where: {
      accountId,
      OR: [
        { conversationId },
        // Notifications the API sent to the phone from this number while the conversation exists.
        {
          conversationId: null,
          direction: "outbound",
          conversational: false,
          fromNumber: conversation.accountNumber,
          toNumber: conversation.remoteNumber,
          createdAt: { gte: conversation.createdAt },
        },
      ],
    },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: THREAD_LIMIT,
    select: threadMessageSelect,
  });
  rows.reverse();
  const [messages, optState, optEvent, flags, read] = await Promise.all([
    toThreadMessages(accountId, rows, () => conversationId),
    db().optState.findUnique({ where: { accountId_number: { accountId, number: conversation.remoteNumber } } }),
    db().optEvent.findFirst({
      where: { accountId, number: conversation.remoteNumber },
      orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    }),
    db().messageFlag.findMany({
      where: { accountId, conversationId, kind: POSSIBLE_OPT_OUT },
      orderBy: { createdAt: "desc" },
      take: 5,
    }),
    db().conversationRead.findUnique({ where: { conversationId_userId: { conversationId, userId: input.userId } } }),
  ]);
  const optedOut = optState?.status === "out";
  const flagged = flags.length > 0 && !optedOut && (!optEvent || flags[0]!.createdAt > optEvent.createdAt);
  const flagBodies = flagged
    ? await db().message.findMany({
        where: { id: { in: flags.map((f) => f.messageId) }, accountId },
        select: { body: true },
      })
    : [];
  return {
    conversation: {
      id: conversation.id,
      accountNumber: conversation.accountNumber,
      remoteNumber: conversation.remoteNumber,
      lastMessageAt: conversation.lastMessageAt.toISOString(),
      createdAt: conversation.createdAt.toISOString(),
    },
    messages,
    hasOlder: rows.length === THREAD_LIMIT,
    optOut: optedOut
      ? {
          at: (optEvent?.createdAt ?? optState?.changedAt ?? new Date()).toISOString(),
          source: optEvent?.source ?? "",
          keyword: optEvent?.keyword ?? null,
          actor: optEvent?.actor ?? "",
        }
      : null,
    possibleOptOut: flagged ? flagBodies.map((m) => m.body) : [],
    lastReadAt: read?.lastReadAt.toISOString() ?? null,
    position,
  };
}

/**
 * Moves the viewer's read marker: `read` marks everything up to now read; otherwise it is put just before the
 * newest inbound message, so the conversation counts one unread again ("Mark unread").
 */
export async function markConversation(input: {
  accountId: string;
  userId: string;
  conversationId: string;
  read: boolean;
}) {
  const conversation = await findConversation(input.accountId, input.conversationId);
  let lastReadAt = new Date();
  if (!input.read) {
    const newest = await db().message.findFirst({
      where: { conversationId: conversation.id, direction: "inbound" },
      orderBy: { createdAt: "desc" },
      select: { createdAt: true },
    });
    lastReadAt = new Date((newest?.createdAt ?? conversation.createdAt).getTime() - 1);
  }
  const key = { conversationId: conversation.id, userId: input.userId };
  await db().conversationRead.upsert({
    where: { conversationId_userId: key },
    create: { ...key, lastReadAt },
    update: { lastReadAt },
  });
  return { conversationId: conversation.id, lastReadAt: lastReadAt.toISOString() };
}

/**
 * A staff member's reply: the API's own send path (conversational, userId the staff member, userType "agent"), so
 * opt-outs, segments, pacing and SDRs are exactly the API's. `clientId` comes back as the message's referenceId:
 * the browser matches its pending bubble with the live echo by it.
 */
export async function sendReply(input: {
  accountId: string;
  userId: string;
  conversationId: string;
  body: string;
  media: string[];
  clientId: string;
  requestId: string;
}): Promise<MessageInfo> {
  const conversation = await findConversation(input.accountId, input.conversationId);
  // The client id is also the Idempotency-Key: a send retried after a lost answer is not sent twice, and gets the
  // first send's entry again (the one destination's, which is what is stored).
  const entry = await sendWithIdempotency<MessageInfo | StoredEnvelope>({
    sender: { kind: "user", accountId: input.accountId, userId: input.userId },
    raw: {
      accountId: input.accountId,
      from: conversation.accountNumber,
      to: conversation.remoteNumber,
      ...(input.body ? { body: input.body } : {}),
      ...(input.media.length > 0 ? { media: input.media } : {}),
      conversational: true,
      userId: input.userId,
      userType: "agent",
      referenceId: input.clientId,
    },
    requestId: input.requestId,
    headers: new Headers({ "idempotency-key": `conversation-${input.clientId}` }),
    answer: (result) => result.messageInfo[0]!,
  });
  // A reply first sent by an earlier version stored the whole API answer: its one entry is in data.messageInfo.
  return "data" in entry ? entry.data.messageInfo[0]! : entry;
}

/** How a reply's Idempotency-Key entry was stored before it kept only its MessageInfo. */
type StoredEnvelope = { data: { messageInfo: MessageInfo[] } };
