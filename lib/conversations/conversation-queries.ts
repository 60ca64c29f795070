import { db } from "../db/client";
import { boundValue, placeholder } from "../db/insert-rows";
import type { ConversationFilters } from "./conversation-schema";

// The conversations domain's SQL that does not go through Prisma, in the configured database's dialect
// (placeholders and bound values from lib/db/insert-rows.ts).

export interface ListRow {
  id: string;
  accountNumber: string;
  remoteNumber: string;
  lastMessageAt: Date | string;
  unread: number | bigint;
}

export interface RawQuery {
  sql: string;
  values: unknown[];
}

/**
 * The account's conversations, newest activity first, with the viewer's unread count (inbound messages after their
 * read marker): a page of ListRow (`page`) and their number (`count`, one row with `total`). `q` matches the
 * phone's digits or any text of the conversation; `filter: "unread"` keeps those with something unread.
 */
export function conversationListQueries(input: { accountId: string; userId: string; filters: ConversationFilters }): {
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
  if (filters.accountNumber) where.push(`c."accountNumber" = ${p("text", filters.accountNumber.replace(/\D/g, ""))}`);
  const q = filters.q?.trim();
  if (q) {
    const digits = q.replace(/[\s()+-]/g, "");
    const like = `%${q.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    const text = `EXISTS (SELECT 1 FROM "Message" m2 WHERE m2."conversationId" = c.id AND LOWER(m2.body) LIKE ${p("text", like)} ESCAPE '\\')`;
    where.push(/^\d+$/.test(digits) ? `(c."remoteNumber" LIKE ${p("text", `%${digits}%`)} OR ${text})` : text);
  }
  const inner = `SELECT c.id, c."accountNumber", c."remoteNumber", c."lastMessageAt",
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

/** Runs conversationListQueries: a page of the account's conversations, and how many there are in all. */
export async function readConversationList(input: {
  accountId: string;
  userId: string;
  filters: ConversationFilters;
}): Promise<{ rows: ListRow[]; total: number }> {
  const { page, count } = conversationListQueries(input);
  const [rows, [counted]] = await Promise.all([
    db().$queryRawUnsafe<ListRow[]>(page.sql, ...page.values),
    db().$queryRawUnsafe<{ total: number | bigint }[]>(count.sql, ...count.values),
  ]);
  return { rows, total: Number(counted?.total ?? 0) };
}
