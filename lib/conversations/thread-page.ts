import { ApiError } from "../api/api-error";
import { db } from "../db/client";
import { threadMessageSelect, toThreadMessages, type ThreadMessageRow } from "./thread-messages";

// A thread's messages a page at a time, newest first in the database and oldest first on screen: the first page
// when a thread opens, older pages as staff scroll up, and a thread opened at one message (a search result) from a
// little before it to the newest. Every page is read by (createdAt, id) on the conversation's index (and the
// phone's, for notifications), so a thread of 10,000 messages opens as fast as one of 10.

/** Messages a thread opens with, and each older page. */
export const THREAD_PAGE = 100;
/** A thread opened at a message loads everything from it to the newest, up to this many messages. */
export const AT_MESSAGE_UP_TO = 2_000;
/** …and this many before it, for context. */
const BEFORE_AT_MESSAGE = 20;

export interface ThreadOf {
  id: string;
  accountNumber: string;
  remoteNumber: string;
  createdAt: Date;
}

/** The conversation's messages, and the notifications the API sent to the phone from its number while it exists. */
export function threadWhere(accountId: string, conversation: ThreadOf) {
  return {
    accountId,
    OR: [
      { conversationId: conversation.id },
      {
        conversationId: null,
        direction: "outbound",
        conversational: false,
        fromNumber: conversation.accountNumber,
        toNumber: conversation.remoteNumber,
        createdAt: { gte: conversation.createdAt },
      },
    ],
  };
}

type Cursor = { createdAt: Date; id: string };

// A cursor as a range on createdAt (which the indexes serve) less the ties on the wrong side of the id.
function olderThan(c: Cursor) {
  return { createdAt: { lte: c.createdAt }, NOT: { createdAt: c.createdAt, id: { gte: c.id } } };
}

function notOlderThan(c: Cursor) {
  return { createdAt: { gte: c.createdAt }, NOT: { createdAt: c.createdAt, id: { lt: c.id } } };
}

const newestFirst = [{ createdAt: "desc" as const }, { id: "desc" as const }];
const byTimeDesc = (a: ThreadMessageRow, b: ThreadMessageRow) =>
  b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

/**
 * The newest `take` messages of the thread (within `range`), oldest first. Two reads, each on an index of its own
 * (threadWhere's OR would let the database walk the account's every message): the conversation's messages on
 * (conversationId, createdAt), and the notifications to the phone on (accountId, toNumber, createdAt). The sender
 * is checked here, not in the read: with it in the WHERE, SQLite may read them through the sending number's index,
 * which holds all it ever sent.
 */
async function readRows(conversation: ThreadOf & { accountId: string }, range: object, take: number) {
  const own = await db().message.findMany({
    where: { conversationId: conversation.id, ...range },
    orderBy: newestFirst,
    take,
    select: threadMessageSelect,
  });
  const notifications: ThreadMessageRow[] = [];
  let after: Cursor | null = null;
  for (;;) {
    const batch: ThreadMessageRow[] = await db().message.findMany({
      where: {
        AND: [
          {
            accountId: conversation.accountId,
            toNumber: conversation.remoteNumber,
            conversationId: null,
            conversational: false,
            createdAt: { gte: conversation.createdAt },
          },
          range,
          after ? olderThan(after) : {},
        ],
      },
      orderBy: newestFirst,
      take,
      select: threadMessageSelect,
    });
    notifications.push(
      ...batch.filter((m) => m.direction === "outbound" && m.fromNumber === conversation.accountNumber),
    );
    if (batch.length < take || notifications.length >= take) break;
    after = batch[batch.length - 1]!;
  }
  return [...own, ...notifications].sort(byTimeDesc).slice(0, take).reverse();
}

/** The message a page is read from, if it is one of the thread's. */
async function cursorOf(accountId: string, conversation: ThreadOf, messageId: string): Promise<Cursor | null> {
  // By id: the primary key finds it, threadWhere says whether it is the thread's.
  return db().message.findFirst({
    where: { AND: [threadWhere(accountId, conversation), { id: messageId }] },
    select: { createdAt: true, id: true },
  });
}

/** The newest page: the rows and whether there are older ones. */
export async function newestRows(accountId: string, conversation: ThreadOf) {
  const rows = await readRows({ ...conversation, accountId }, {}, THREAD_PAGE + 1);
  return { rows: rows.slice(-THREAD_PAGE), hasOlder: rows.length > THREAD_PAGE };
}

/**
 * A thread opened at one of its messages: from a few before it to the newest, or null when the message is not the
 * thread's or more than AT_MESSAGE_UP_TO messages back (the thread then opens as usual).
 */
export async function rowsFromMessage(accountId: string, conversation: ThreadOf, messageId: string) {
  const at = await cursorOf(accountId, conversation, messageId);
  if (!at) return null;
  const thread = { ...conversation, accountId };
  const newer = await readRows(thread, notOlderThan(at), AT_MESSAGE_UP_TO + 1);
  if (newer.length > AT_MESSAGE_UP_TO) return null;
  const before = await readRows(thread, olderThan(at), BEFORE_AT_MESSAGE + 1);
  return {
    rows: [...before.slice(-BEFORE_AT_MESSAGE), ...newer],
    hasOlder: before.length > BEFORE_AT_MESSAGE,
  };
}

/** GET …/conversations/{id}/messages?before=: the page of messages before one of the thread's. */
export async function olderMessages(input: {
  accountId: string;
  conversation: ThreadOf;
  before: string;
  count?: number;
}) {
  const { accountId, conversation } = input;
  const count = input.count ?? THREAD_PAGE;
  const cursor = await cursorOf(accountId, conversation, input.before);
  if (!cursor)
    throw new ApiError("InvalidRequest", {
      detail: "'before' must be the id of a message of this conversation",
      field: "before",
    });
  const rows = await readRows({ ...conversation, accountId }, olderThan(cursor), count + 1);
  const page = rows.slice(-count);
  return {
    messages: await toThreadMessages(accountId, page, () => conversation.id),
    hasOlder: rows.length > count,
  };
}
