import { db } from "../db/client";
import { binder } from "../db/insert-rows";

// The contacts domain's SQL that does not go through Prisma: the list is every number the account has a contact
// row for or a conversation with (a number nobody has named is still a contact), in the configured dialect.

export interface ContactListRow {
  number: string;
  id: string | null;
  name: string | null;
  email: string | null;
  company: string | null;
  tags: string | null;
  note: string | null;
  updatedAt: Date | string | null;
}

/** `text` as a LIKE pattern matching it anywhere, lower-cased, its wildcards escaped (ESCAPE '\'). */
export function likePattern(text: string): string {
  return `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * A page of the account's contacts, named ones first (by name), then by number, and how many match. `q` matches
 * the name, e-mail, company or a tag (case-insensitively), or the number's digits.
 */
export async function readContactList(input: { accountId: string; q?: string; start: number; count: number }) {
  const values: unknown[] = [];
  const bind = binder(values);
  const numbers = `SELECT ct."number" FROM "Contact" ct WHERE ct."accountId" = ${bind("text", input.accountId)}
    UNION SELECT c."remoteNumber" FROM "Conversation" c WHERE c."accountId" = ${bind("text", input.accountId)}`;
  // SQLite's placeholders are positional: bind in the order the statement shows them.
  const join = `LEFT JOIN "Contact" k ON k."accountId" = ${bind("text", input.accountId)} AND k."number" = n."number"`;
  const where: string[] = [];
  const q = input.q?.trim();
  if (q) {
    const like = likePattern(q);
    const fields = ["name", "email", "company", "tags"].map(
      (f) => `LOWER(COALESCE(k."${f}", '')) LIKE ${bind("text", like)} ESCAPE '\\'`,
    );
    const digits = q.replace(/[\s().+-]/g, "");
    if (/^\d+$/.test(digits)) fields.push(`n."number" LIKE ${bind("text", `%${digits}%`)}`);
    where.push(`(${fields.join(" OR ")})`);
  }
  const from = `FROM (${numbers}) n ${join}
    ${where.length ? `WHERE ${where.join(" AND ")}` : ""}`;
  const countValues = [...values];
  const page = `SELECT n."number", k.id, k.name, k.email, k.company, k.tags, k.note, k."updatedAt" ${from}
    ORDER BY CASE WHEN COALESCE(k.name, '') = '' THEN 1 ELSE 0 END, LOWER(COALESCE(k.name, '')), n."number"
    LIMIT ${bind("int", input.count)} OFFSET ${bind("int", input.start)}`;
  const [rows, [counted]] = await Promise.all([
    db().$queryRawUnsafe<ContactListRow[]>(page, ...values),
    db().$queryRawUnsafe<{ total: number | bigint }[]>(`SELECT COUNT(*) AS total ${from}`, ...countValues),
  ]);
  return { rows, total: Number(counted?.total ?? 0) };
}

/** The conversations whose contact's name holds `q` (any case), newest activity first, with that name. */
export async function conversationsByContactName(input: { accountId: string; q: string; limit: number }) {
  const values: unknown[] = [];
  const bind = binder(values);
  // Positional placeholders on SQLite: bound in the order the statement shows them.
  const sql = `SELECT c.id, c."accountNumber", c."remoteNumber", c."lastMessageAt", k.name
    FROM "Contact" k JOIN "Conversation" c ON c."accountId" = k."accountId" AND c."remoteNumber" = k."number"
    WHERE k."accountId" = ${bind("text", input.accountId)} AND LOWER(k.name) LIKE ${bind("text", likePattern(input.q))} ESCAPE '\\'
    ORDER BY c."lastMessageAt" DESC, c.id DESC
    LIMIT ${bind("int", input.limit)}`;
  const rows = await db().$queryRawUnsafe<
    { id: string; accountNumber: string; remoteNumber: string; lastMessageAt: Date | string; name: string }[]
  >(sql, ...values);
  return rows.map((r) => ({ ...r, lastMessageAt: new Date(r.lastMessageAt) }));
}
