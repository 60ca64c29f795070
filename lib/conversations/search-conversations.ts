import { db } from "../db/client";
import { foldCase } from "../messaging/listing-queries";
import { findMessages } from "../messaging/list-messages";
import { contactNames } from "../contacts/manage-contacts";
import { conversationsByContactName } from "../contacts/contact-queries";

// Search across an account's conversations: the messages whose body holds the text (through the message listing's
// body search, which is indexed on both databases: SQLite's trigram FTS5 table, PostgreSQL's pg_trgm index), and
// the conversations whose phone number holds the digits typed, however they were written ("+1 (415) 555-0123"),
// and those whose contact's name holds the text. Every hit carries the contact's name, shown instead of the number.
// Each message hit names its conversation and the words around the match, marked, so the result shows the match
// and opens the thread at that message.

export const SEARCH_HITS = 20;
const SNIPPET_AROUND = 60;

export interface SearchSnippet {
  /** Text before the match ("…" first when cut). */
  before: string;
  match: string;
  after: string;
}

export interface MessageHit {
  conversationId: string;
  messageId: string;
  remoteNumber: string;
  /** The contact's name ("" when nobody named the number). */
  contactName: string;
  accountNumber: string;
  direction: string;
  createdAt: string;
  snippet: SearchSnippet;
}

export interface NumberHit {
  conversationId: string;
  remoteNumber: string;
  contactName: string;
  accountNumber: string;
  lastMessageAt: string;
}

/** The digits of a query that looks like a phone number as people write one, else null. */
export function phoneDigits(q: string): string | null {
  if (!/^[\d\s().+\-/]+$/.test(q)) return null;
  const digits = q.replace(/\D/g, "");
  return digits.length >= 3 ? digits : null;
}

/** The words around the first match of `needle` in `body` (case folded as the listing folds it). */
export function snippetOf(body: string, needle: string): SearchSnippet {
  const chars = Array.from(body);
  const folded = chars.map((c) => foldCase(c));
  const target = Array.from(foldCase(needle));
  let at = -1;
  for (let i = 0; i + target.length <= folded.length && at < 0; i++) {
    if (target.every((t, j) => folded[i + j] === t)) at = i;
  }
  if (at < 0) return { before: chars.slice(0, SNIPPET_AROUND * 2).join(""), match: "", after: "" };
  const from = Math.max(0, at - SNIPPET_AROUND);
  const to = Math.min(chars.length, at + target.length + SNIPPET_AROUND);
  return {
    before: (from > 0 ? "…" : "") + chars.slice(from, at).join(""),
    match: chars.slice(at, at + target.length).join(""),
    after: chars.slice(at + target.length, to).join("") + (to < chars.length ? "…" : ""),
  };
}

/** GET …/conversations/search?q=: message hits (newest first), number hits and contact-name hits. */
export async function searchConversations(input: { accountId: string; q: string }) {
  const { accountId } = input;
  const q = input.q.trim();
  const digits = phoneDigits(q);
  const [page, numbers, named] = await Promise.all([
    findMessages({ accountId, body: q, start: 0, count: SEARCH_HITS, sortBy: "timestamp", sortDir: "desc", echo: {} }),
    digits
      ? db().conversation.findMany({
          where: { accountId, remoteNumber: { contains: digits } },
          orderBy: [{ lastMessageAt: "desc" }, { id: "desc" }],
          take: SEARCH_HITS,
        })
      : Promise.resolve([]),
    digits ? Promise.resolve([]) : conversationsByContactName({ accountId, q, limit: SEARCH_HITS }),
  ]);
  const ids = page.map((r) => r.messageId);
  // By id alone (the primary key): with the account in the same WHERE, SQLite reads the account's every message
  // through its (accountId, carrierMessageId) index to find these (about a second at a million messages). The hits
  // are the account's already; the account is checked below all the same.
  const found = await db().message.findMany({
    where: { id: { in: ids } },
    select: {
      id: true,
      accountId: true,
      conversationId: true,
      fromNumber: true,
      toNumber: true,
      direction: true,
      body: true,
      createdAt: true,
    },
  });
  const rows = found.filter((r) => r.accountId === accountId);
  // A notification the API sent has no conversation of its own: it shows in the thread of its two numbers. One
  // read finds both kinds: by id, and by number pair.
  const pairs = rows
    .filter((r) => !r.conversationId)
    .map((r) => ({ accountNumber: r.fromNumber, remoteNumber: r.toNumber }));
  const conversationIds = [...new Set(rows.flatMap((r) => (r.conversationId ? [r.conversationId] : [])))];
  const conversations =
    rows.length > 0
      ? await db().conversation.findMany({
          where: { accountId, OR: [{ id: { in: conversationIds } }, ...pairs] },
          select: { id: true, accountNumber: true, remoteNumber: true },
        })
      : [];
  const byId = new Map(conversations.map((c) => [c.id, c]));
  const rowById = new Map(rows.map((r) => [r.id, r]));
  const messages: MessageHit[] = [];
  for (const result of page) {
    const row = rowById.get(result.messageId);
    if (!row) continue;
    const conversation = row.conversationId
      ? byId.get(row.conversationId)
      : conversations.find((c) => c.accountNumber === row.fromNumber && c.remoteNumber === row.toNumber);
    if (!conversation) continue;
    messages.push({
      conversationId: conversation.id,
      messageId: row.id,
      remoteNumber: conversation.remoteNumber,
      contactName: "",
      accountNumber: conversation.accountNumber,
      direction: row.direction,
      createdAt: row.createdAt.toISOString(),
      snippet: snippetOf(row.body, q),
    });
  }
  const names = await contactNames(accountId, [
    ...messages.map((m) => m.remoteNumber),
    ...numbers.map((c) => c.remoteNumber),
  ]);
  for (const m of messages) m.contactName = names.get(m.remoteNumber) ?? "";
  const hit = (c: { id: string; remoteNumber: string; accountNumber: string; lastMessageAt: Date }, name: string) => ({
    conversationId: c.id,
    remoteNumber: c.remoteNumber,
    contactName: name,
    accountNumber: c.accountNumber,
    lastMessageAt: c.lastMessageAt.toISOString(),
  });
  return {
    q,
    messages,
    numbers: numbers.map((c) => hit(c, names.get(c.remoteNumber) ?? "")),
    contacts: named.map((c) => hit(c, c.name)),
  };
}

/** How many of the newest messages holding a text the conversation list looks through for their conversations. */
export const LIST_TEXT_HITS = 500;

/**
 * The conversations of the newest LIST_TEXT_HITS messages that hold `q`, through the listing's indexed body search
 * (the conversation list's text search: it never reads every message of every conversation). A notification the
 * API sent counts for the conversation of its two numbers.
 */
export async function conversationsWithText(accountId: string, q: string): Promise<string[]> {
  const hits = await findMessages({
    accountId,
    body: q,
    start: 0,
    count: LIST_TEXT_HITS,
    sortBy: "timestamp",
    sortDir: "desc",
    echo: {},
  });
  if (hits.length === 0) return [];
  const rows = (
    await db().message.findMany({
      where: { id: { in: hits.map((h) => h.messageId) } },
      select: { accountId: true, conversationId: true, fromNumber: true, toNumber: true },
    })
  ).filter((r) => r.accountId === accountId);
  const ids = new Set(rows.flatMap((r) => (r.conversationId ? [r.conversationId] : [])));
  const pairs = rows
    .filter((r) => !r.conversationId)
    .map((r) => ({ accountNumber: r.fromNumber, remoteNumber: r.toNumber }));
  if (pairs.length > 0) {
    const byPair = await db().conversation.findMany({ where: { accountId, OR: pairs }, select: { id: true } });
    for (const c of byPair) ids.add(c.id);
  }
  return [...ids];
}
