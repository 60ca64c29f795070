import { db } from "../db/client";
import { boundValue, placeholder, placeholderList } from "../db/insert-rows";
import type { ConversationFilters } from "./conversation-schema";

// The conversations domain's SQL that does not go through Prisma, in the configured database's dialect
// (placeholders and bound values from lib/db/insert-rows.ts).

export interface ListRow {
  id: string;
  accountNumber: string;
  remoteNumber: string;
  lastMessageAt: Date | string;
  unread: number | bigint;
  status: string;
  assigneeId: string | null;
  snoozedUntil: Date | string | null;
}

/**
 * How many conversations each view holds for the viewer: Mine, Unassigned and All count the open ones that are not
 * snoozed; Snoozed the open ones snoozed until a later time.
 */
export interface ViewCounts {
  mine: number;
  unassigned: number;
  all: number;
  snoozed: number;
  resolved: number;
}

/** Who reads the list: an agent of an account that shows agents only theirs and the unassigned ones is limited. */
export interface ListViewer {
  userId: string;
  /** True: only the viewer's conversations and the unassigned ones. */
  limited: boolean;
}

export interface RawQuery {
  sql: string;
  values: unknown[];
}

/**
 * The account's conversations, newest activity first, with the viewer's unread count (inbound messages after their
 * read marker): a page of ListRow (`page`) and their number (`count`, one row with `total`). `q` matches the
 * phone's digits, any text of the conversation or the contact's name; `filter: "unread"` keeps those with something unread.
 */
export function conversationListQueries(input: {
  accountId: string;
  userId: string;
  filters: ConversationFilters;
  limited?: boolean;
  /** With `q`: the conversations whose messages hold the text (conversationsWithText). */
  textIds?: string[];
}): {
  page: RawQuery;
  count: RawQuery;
} {
  const { accountId, userId, filters } = input;
  const values: unknown[] = [];
  const p = (kind: "text" | "date" | "int", value: unknown) => {
    values.push(boundValue(kind, value));
    return placeholder(values.length, kind);
  };
  // SQLite's placeholders are positional: parameters are bound in the order they appear in the statement.
  const viewer = p("text", userId);
  const where = [`c."accountId" = ${p("text", accountId)}`];
  if (input.limited) where.push(`(c."assigneeId" IS NULL OR c."assigneeId" = ${p("text", userId)})`);
  if (filters.view === "resolved") where.push(`c.status = 'resolved'`);
  else if (filters.view === "snoozed") where.push(`c.status = 'open' AND c."snoozedUntil" > ${p("date", new Date())}`);
  else where.push(`c.status = 'open' AND (c."snoozedUntil" IS NULL OR c."snoozedUntil" <= ${p("date", new Date())})`);
  if (filters.view === "mine") where.push(`c."assigneeId" = ${p("text", userId)}`);
  if (filters.view === "unassigned") where.push(`c."assigneeId" IS NULL`);
  if (filters.accountNumber) where.push(`c."accountNumber" = ${p("text", filters.accountNumber.replace(/\D/g, ""))}`);
  const tag = filters.tag?.trim().toLowerCase();
  if (tag) {
    // Tags are kept as a JSON array: the tag, JSON-quoted, is a whole element of it.
    const element = `%${JSON.stringify(tag).replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    where.push(
      `EXISTS (SELECT 1 FROM "Contact" kt WHERE kt."accountId" = c."accountId" AND kt."number" = c."remoteNumber" AND LOWER(kt.tags) LIKE ${p("text", element)} ESCAPE '\\')`,
    );
  }
  const q = filters.q?.trim();
  if (q) {
    const digits = q.replace(/[\s().+-]/g, "");
    const like = `%${q.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    // Bound in the order the statement shows them (SQLite's placeholders are positional).
    const any = /^\d+$/.test(digits) ? [`c."remoteNumber" LIKE ${p("text", `%${digits}%`)}`] : [];
    // The text: the conversations the indexed body search found it in (never a scan of every conversation's
    // messages), and those whose contact's name holds it.
    if (input.textIds && input.textIds.length > 0) any.push(`c.id IN (${placeholderList(values, input.textIds)})`);
    any.push(
      `c."remoteNumber" IN (SELECT k."number" FROM "Contact" k WHERE k."accountId" = ${p("text", accountId)} AND LOWER(k.name) LIKE ${p("text", like)} ESCAPE '\\')`,
    );
    where.push(`(${any.join(" OR ")})`);
  }
  const inner = `SELECT c.id, c."accountNumber", c."remoteNumber", c."lastMessageAt", c.status, c."assigneeId",
      c."snoozedUntil",
      (SELECT COUNT(*) FROM "Message" m WHERE m."conversationId" = c.id AND m.direction = 'inbound'
        AND (r."lastReadAt" IS NULL OR m."createdAt" > r."lastReadAt")) AS unread
    FROM "Conversation" c
    LEFT JOIN "ConversationRead" r ON r."conversationId" = c.id AND r."userId" = ${viewer}
    WHERE ${where.join(" AND ")}`;
  const outer = `FROM (${inner}) t ${filters.filter === "unread" ? "WHERE t.unread > 0" : ""}`;
  const countValues = [...values];
  const page = `SELECT * ${outer} ORDER BY t."lastMessageAt" DESC, t.id DESC LIMIT ${p("int", filters.count)} OFFSET ${p("int", filters.start)}`;
  return { page: { sql: page, values }, count: { sql: `SELECT COUNT(*) AS total ${outer}`, values: countValues } };
}

/**
 * The views' counts for the viewer, in one statement: open conversations that are theirs, unassigned, and all of
 * them, and the resolved ones; the number filter applies, the search and the unread filter do not.
 */
export function viewCountsQuery(input: {
  accountId: string;
  userId: string;
  accountNumber?: string;
  limited?: boolean;
}): RawQuery {
  const values: unknown[] = [];
  const p = (value: unknown, kind: "text" | "date" = "text") => {
    values.push(boundValue(kind, value));
    return placeholder(values.length, kind);
  };
  const now = new Date();
  // Open and awake: not snoozed, or snoozed until a time that has passed.
  const awake = () => `c.status = 'open' AND (c."snoozedUntil" IS NULL OR c."snoozedUntil" <= ${p(now, "date")})`;
  // Positional placeholders: bound in the order they appear.
  const sql = `SELECT
      SUM(CASE WHEN ${awake()} AND c."assigneeId" = ${p(input.userId)} THEN 1 ELSE 0 END) AS mine,
      SUM(CASE WHEN ${awake()} AND c."assigneeId" IS NULL THEN 1 ELSE 0 END) AS unassigned,
      SUM(CASE WHEN ${awake()} THEN 1 ELSE 0 END) AS "all",
      SUM(CASE WHEN c.status = 'open' AND c."snoozedUntil" > ${p(now, "date")} THEN 1 ELSE 0 END) AS snoozed,
      SUM(CASE WHEN c.status = 'resolved' THEN 1 ELSE 0 END) AS resolved
    FROM "Conversation" c
    WHERE c."accountId" = ${p(input.accountId)}${
      input.accountNumber ? ` AND c."accountNumber" = ${p(input.accountNumber.replace(/\D/g, ""))}` : ""
    }${input.limited ? ` AND (c."assigneeId" IS NULL OR c."assigneeId" = ${p(input.userId)})` : ""}`;
  return { sql, values };
}

/** Runs viewCountsQuery. */
export async function readViewCounts(input: {
  accountId: string;
  userId: string;
  accountNumber?: string;
  limited?: boolean;
}): Promise<ViewCounts> {
  const { sql, values } = viewCountsQuery(input);
  const [row] = await db().$queryRawUnsafe<Record<keyof ViewCounts, number | bigint | null>[]>(sql, ...values);
  return {
    mine: Number(row?.mine ?? 0),
    unassigned: Number(row?.unassigned ?? 0),
    all: Number(row?.all ?? 0),
    snoozed: Number(row?.snoozed ?? 0),
    resolved: Number(row?.resolved ?? 0),
  };
}

/** Runs conversationListQueries: a page of the account's conversations, and how many there are in all. */
export async function readConversationList(input: {
  accountId: string;
  userId: string;
  filters: ConversationFilters;
  limited?: boolean;
  textIds?: string[];
}): Promise<{ rows: ListRow[]; total: number }> {
  const { page, count } = conversationListQueries(input);
  const [rows, [counted]] = await Promise.all([
    db().$queryRawUnsafe<ListRow[]>(page.sql, ...page.values),
    db().$queryRawUnsafe<{ total: number | bigint }[]>(count.sql, ...count.values),
  ]);
  return { rows, total: Number(counted?.total ?? 0) };
}
