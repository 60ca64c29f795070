import { CsvError, parse } from "csv-parse/sync";
import { stringify } from "csv-stringify/sync";
import { ApiError } from "../api/api-error";
import { parseInput } from "../api/parse-input";
import { db } from "../db/client";
import { uuidv7 } from "../db/ids";
import { validTn } from "../messaging/phone-number";
import { contactsChanged, parseTags, type ContactAudit } from "./manage-contacts";
import { contactEmail, contactImportInput, contactTags } from "./contact-schemas";

export const CSV_HEADER = ["name", "phone", "email", "tags"] as const;
const MAX_ROWS = 10_000;

export interface ImportProblem {
  /** The file's line number (the header is line 1). */
  line: number;
  message: string;
}

export type ImportResult = {
  created: number;
  updated: number;
  unchanged: number;
  problems: ImportProblem[];
};

interface GoodRow {
  number: string;
  name: string;
  email: string;
  tags: string[];
}

// The export defuses a leading = + - @ with a quote (a spreadsheet would run it as a formula); reading our own file
// back takes that quote off, so that export then import changes nothing.
const DEFUSED = /^'[=+\-@\t\r]/;
const undefuse = (value: string) => (DEFUSED.test(value) ? value.slice(1) : value);
export const defuse = (value: string) => (/^[=+\-@\t\r]/.test(value) ? `'${value}` : value);

function readRows(text: string): { record: string[]; line: number }[] {
  try {
    // One line ending for the whole file: the parser takes the first line's ending as the only one.
    const rows = parse(text.replace(/\r\n?/g, "\n"), {
      bom: true,
      info: true,
      relax_column_count: true,
      skip_empty_lines: true,
    }) as unknown as { record: string[]; info: { lines: number } }[];
    return rows.map((r) => ({ record: r.record, line: r.info.lines }));
  } catch (error) {
    if (error instanceof CsvError) {
      const line = (error as CsvError & { lines?: number }).lines;
      throw new ApiError("InvalidRequest", {
        detail: `the file is not CSV${line ? ` (line ${line})` : ""}: ${error.message}`,
        field: "csv",
      });
    }
    throw error;
  }
}

function checkRow(record: string[]): GoodRow | string {
  if (record.length !== CSV_HEADER.length) return `expected 4 columns (name,phone,email,tags), found ${record.length}`;
  const [name, phone, email, tags] = record.map((v) => undefuse(v.trim())) as [string, string, string, string];
  const number = validTn(phone.replace(/[\s().-]/g, ""));
  if (number === null) return phone === "" ? "phone is missing" : `phone "${phone}" is not a valid E.164 number`;
  if (name.length > 200) return "name is longer than 200 characters";
  const mail = contactEmail.safeParse(email);
  if (!mail.success) return `email "${email}" is not an e-mail address`;
  const tagList = contactTags.safeParse(tags.split(";"));
  if (!tagList.success) return `tags: ${tagList.error.issues[0]!.message}`;
  return { number, name, email: mail.data, tags: tagList.data };
}

/**
 * Imports a CSV file of contacts (header `name,phone,email,tags`, tags separated by `;`), the phone number as the
 * key. Each good row creates or updates its contact (an empty cell keeps what is stored; company and note are not
 * in the file); each bad row is reported with its line number and nothing of it is stored. Importing the same file
 * again changes nothing.
 */
export async function importContactsCsv(input: {
  accountId: string;
  body: unknown;
  audit: ContactAudit;
}): Promise<ImportResult> {
  const { csv } = parseInput(contactImportInput, input.body);
  const rows = readRows(csv);
  const header = rows.shift();
  if (!header || header.record.map((h) => h.trim().toLowerCase()).join(",") !== CSV_HEADER.join(",")) {
    throw new ApiError("InvalidRequest", { detail: "the first line must be name,phone,email,tags", field: "csv" });
  }
  if (rows.length > MAX_ROWS) {
    throw new ApiError("InvalidRequest", { detail: `at most ${MAX_ROWS} contacts a file`, field: "csv" });
  }
  const problems: ImportProblem[] = [];
  const good = new Map<string, GoodRow & { line: number }>();
  for (const { record, line } of rows) {
    const checked = checkRow(record);
    if (typeof checked === "string") problems.push({ line, message: checked });
    else if (good.has(checked.number)) {
      problems.push({ line, message: `phone ${checked.number} is already on line ${good.get(checked.number)!.line}` });
    } else good.set(checked.number, { ...checked, line });
  }
  const result: ImportResult = { created: 0, updated: 0, unchanged: 0, problems };
  const numbers = [...good.keys()];
  const changed: string[] = [];
  for (let i = 0; i < numbers.length; i += 500) {
    const batch = numbers.slice(i, i + 500);
    await db().$transaction(async (tx) => {
      const existing = await tx.contact.findMany({ where: { accountId: input.accountId, number: { in: batch } } });
      const byNumber = new Map(existing.map((c) => [c.number, c]));
      for (const number of batch) {
        const row = good.get(number)!;
        const stored = byNumber.get(number);
        const next = {
          name: row.name || stored?.name || "",
          email: row.email || stored?.email || "",
          tags: JSON.stringify(row.tags.length ? row.tags : parseTags(stored?.tags)),
        };
        if (!stored) {
          await tx.contact.create({ data: { id: uuidv7(), accountId: input.accountId, number, ...next } });
          result.created++;
          changed.push(number);
        } else if (next.name === stored.name && next.email === stored.email && next.tags === stored.tags) {
          result.unchanged++;
        } else {
          await tx.contact.update({ where: { id: stored.id }, data: next });
          result.updated++;
          changed.push(number);
        }
      }
    });
  }
  problems.sort((a, b) => a.line - b.line);
  if (changed.length > 0) {
    const detail = `created ${result.created}, updated ${result.updated}, unchanged ${result.unchanged}, refused ${problems.length}`;
    await contactsChanged(input.accountId, "contacts.imported", changed, { ...input.audit, detail });
  }
  return result;
}

/** Every saved contact of the account as CSV (name,phone,email,tags), by number, quoted and formula-safe. */
export async function exportContactsCsv(accountId: string): Promise<string> {
  const lines: string[][] = [];
  let cursor: string | undefined;
  for (;;) {
    const rows = await db().contact.findMany({
      where: { accountId, ...(cursor ? { number: { gt: cursor } } : {}) },
      orderBy: { number: "asc" },
      take: 5000,
      select: { number: true, name: true, email: true, tags: true },
    });
    for (const row of rows) {
      // The number is our own validated digits: written as +digits, which the import reads back.
      lines.push([defuse(row.name), `+${row.number}`, defuse(row.email), defuse(parseTags(row.tags).join(";"))]);
    }
    if (rows.length < 5000) break;
    cursor = rows[rows.length - 1]!.number;
  }
  const body = stringify(lines, { quoted: true, record_delimiter: "\r\n" });
  return `${CSV_HEADER.join(",")}\r\n${body}`;
}
