import { db } from "../db/client";
import { POSSIBLE_OPT_OUT } from "../opt/apply-opt-keyword";
import { sendWithIdempotency } from "../messaging/send-with-idempotency";
import type { MessageInfo } from "../messaging/send-message";
import { SEND_REJECT_REASONS } from "../messaging/message-serializers";
import { ApiError } from "../api/api-error";
import { tnDigits } from "../messaging/phone-number";
import type { ConversationFilters } from "./conversation-schema";
import { readConversationList, readViewCounts } from "./conversation-queries";
import { contactNames } from "../contacts/manage-contacts";
import {
  assignOnReply,
  conversationActivity,
  findVisibleConversation,
  inboxViewer,
  staffNames,
} from "./conversation-status";
import { currentPosition, toThreadMessages } from "./thread-messages";
import { newestRows, olderMessages, rowsFromMessage } from "./thread-page";
import { listNotes } from "../notes/manage-notes";
import { conversationsWithText } from "./search-conversations";

export interface ConversationSummary {
  id: string;
  accountNumber: string;
  remoteNumber: string;
  lastMessageAt: string;
  preview: { body: string; direction: string; media: number; status: string } | null;
  unread: number;
  optedOut: boolean;
  possibleOptOut: boolean;
  /** The contact's saved name, or null while nobody named the number. */
  contactName: string | null;
  status: "open" | "resolved";
  assigneeId: string | null;
  assigneeName: string | null;
  snoozedUntil: string | null;
}

/**
 * The account's conversations, newest activity first, with the viewer's unread count (inbound messages after their
 * read marker), the last message, and the opt-out state of the phone. `q` matches the phone's digits or any text of
 * the conversation; `filter: "unread"` keeps those with something unread.
 */
export async function listConversations(input: { accountId: string; userId: string; filters: ConversationFilters }) {
  const { accountId, userId, filters } = input;
  const viewer = await inboxViewer(accountId, userId);
  // An agent of an account that shows agents only theirs and the unassigned ones reads no other.
  const limited = viewer.role === "agent" && viewer.visibility === "assigned";
  const q = filters.q?.trim();
  const textIds = q ? await conversationsWithText(accountId, q) : undefined;
  const [{ rows, total }, counts] = await Promise.all([
    readConversationList({ ...input, limited, textIds }),
    readViewCounts({ accountId, userId, accountNumber: filters.accountNumber, limited }),
  ]);
  const ids = rows.map((r) => r.id);
  const [lasts, optOuts, flags, contacts, staff] = await Promise.all([
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
    contactNames(
      accountId,
      rows.map((r) => r.remoteNumber),
    ),
    staffNames(
      accountId,
      rows.map((r) => r.assigneeId),
    ),
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
      contactName: contacts.get(row.remoteNumber) ?? null,
      status: row.status === "resolved" ? "resolved" : "open",
      assigneeId: row.assigneeId,
      assigneeName: row.assigneeId ? (staff.get(row.assigneeId) ?? null) : null,
      snoozedUntil: row.snoozedUntil ? new Date(row.snoozedUntil).toISOString() : null,
    };
  });
  return { conversations, total, start: filters.start, count: filters.count, counts };
}

function mediaCount(json: string): number {
  try {
    const v = JSON.parse(json) as unknown;
    return Array.isArray(v) ? v.length : 0;
  } catch {
    return 0;
  }
}

/** The conversation if the user may see it: another account's, or one the account hides from this agent, is 404. */
async function findConversation(accountId: string, conversationId: string, userId: string) {
  return findVisibleConversation(accountId, conversationId, await inboxViewer(accountId, userId));
}

/**
 * One conversation as the thread shows it: its newest messages (THREAD_PAGE; older ones are read as staff scroll
 * up), or, opened `at` one of its messages, from just before that one to the newest; its opt state and flags, and
 * its position.
 */
export async function getThread(input: { accountId: string; userId: string; conversationId: string; at?: string }) {
  const { accountId, conversationId } = input;
  // The position first: anything that changes while the rest is read comes again through the live feed.
  const position = await currentPosition(accountId);
  const conversation = await findConversation(accountId, conversationId, input.userId);
  const fromMessage = input.at ? await rowsFromMessage(accountId, conversation, input.at) : null;
  const { rows, hasOlder } = fromMessage ?? (await newestRows(accountId, conversation));
  const [messages, optState, optEvent, flags, read, activity, staff, contacts, notes] = await Promise.all([
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
    conversationActivity(accountId, conversationId),
    staffNames(accountId, [conversation.assigneeId]),
    contactNames(accountId, [conversation.remoteNumber]),
    listNotes(accountId, conversationId),
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
      contactName: contacts.get(conversation.remoteNumber) ?? null,
      status: conversation.status === "resolved" ? ("resolved" as const) : ("open" as const),
      assigneeId: conversation.assigneeId,
      assigneeName: conversation.assigneeId ? (staff.get(conversation.assigneeId) ?? null) : null,
      snoozedUntil: conversation.snoozedUntil?.toISOString() ?? null,
    },
    messages,
    activity,
    hasOlder,
    /** The message the thread was opened at (a search result), when it is shown. */
    at: fromMessage ? input.at! : null,
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
    notes,
  };
}

/** The page of a thread's messages before one of them (staff scrolling up). */
export async function getOlderMessages(input: {
  accountId: string;
  userId: string;
  conversationId: string;
  before: string;
}) {
  const conversation = await findConversation(input.accountId, input.conversationId, input.userId);
  return olderMessages({ accountId: input.accountId, conversation, before: input.before });
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
  const conversation = await findConversation(input.accountId, input.conversationId, input.userId);
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
  const conversation = await findConversation(input.accountId, input.conversationId, input.userId);
  const info = await sendAsStaff({ ...input, from: conversation.accountNumber, to: conversation.remoteNumber });
  // Replying to an unassigned conversation takes it.
  if (info.status === "accepted" && conversation.assigneeId === null) await takeOnReply(input, conversation.id);
  return info;
}

/** A message a staff member sends: from an account number to a phone, under a client id. */
interface StaffSend {
  accountId: string;
  userId: string;
  from: string;
  to: string;
  body: string;
  media: string[];
  clientId: string;
  requestId: string;
}

/**
 * A staff member starts a conversation: the first message from the account number they picked to a phone, sent
 * as a reply is. The answer names the conversation it opened (or joined, when there already was one) and the
 * message's entry; a refused first message is an error (there is no conversation to show it in).
 */
export async function startConversation(input: StaffSend): Promise<{ conversationId: string; message: MessageInfo }> {
  // A conversation with that phone that the viewer may not see (another agent's, where agents see only theirs)
  // is not written into: the answer is the one a thread they cannot open gets.
  const [accountNumber, remoteNumber] = [tnDigits(input.from), tnDigits(input.to)];
  if (accountNumber && remoteNumber) {
    const existing = await db().conversation.findUnique({
      where: { accountId_accountNumber_remoteNumber: { accountId: input.accountId, accountNumber, remoteNumber } },
      select: { id: true },
    });
    if (existing) await findConversation(input.accountId, existing.id, input.userId);
  }
  const info = await sendAsStaff(input);
  const sent =
    info.status === "accepted"
      ? await db().message.findUnique({ where: { id: info.messageId }, select: { conversationId: true } })
      : null;
  if (!sent?.conversationId) {
    const meaning = SEND_REJECT_REASONS.find((r) => r.reason === info.reason)?.meaning ?? "the message was refused";
    throw new ApiError("InvalidRequest", {
      detail: `${info.reason ? `${info.reason}: ` : ""}${meaning.replace(/`/g, "")}`,
      field: info.reason === "FromNotOwned" ? "from" : "to",
    });
  }
  const conversation = await findConversation(input.accountId, sent.conversationId, input.userId);
  if (conversation.assigneeId === null) await takeOnReply(input, conversation.id);
  return { conversationId: conversation.id, message: info };
}

/**
 * Sends as a staff member through the API's own send path (opt-outs, footers, pacing and SDRs are the API's),
 * conversational, under the client id as referenceId and as the Idempotency-Key: a send retried after a lost
 * answer is not sent twice, and gets the first send's entry again.
 */
async function sendAsStaff(input: StaffSend): Promise<MessageInfo> {
  const entry = await sendWithIdempotency<MessageInfo | StoredEnvelope>({
    sender: { kind: "user", accountId: input.accountId, userId: input.userId },
    raw: {
      accountId: input.accountId,
      from: input.from,
      to: input.to,
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

/** The staff member who writes in an unassigned conversation takes it. */
async function takeOnReply(input: { accountId: string; userId: string }, conversationId: string): Promise<void> {
  const email = (await db().user.findUnique({ where: { id: input.userId }, select: { email: true } }))?.email ?? "";
  await assignOnReply({ accountId: input.accountId, userId: input.userId, email, conversationId });
}

/** How a reply's Idempotency-Key entry was stored before it kept only its MessageInfo. */
type StoredEnvelope = { data: { messageInfo: MessageInfo[] } };
