import { ApiError } from "../api/api-error";
import { parseInput } from "../api/parse-input";
import { db } from "../db/client";
import { recordAudit } from "../audit/audit-trail";
import { announceContacts } from "../realtime/start-realtime";
import { uuidv7 } from "../db/ids";
import { validTn } from "../messaging/phone-number";
import { readContactList } from "./contact-queries";
import { contactInput, contactListQuery, type ContactInput } from "./contact-schemas";

export interface ContactView {
  /** Digits alone, as conversations keep them. */
  number: string;
  /** False for a number nobody has named yet (no row): every remote number is a contact. */
  saved: boolean;
  name: string;
  email: string;
  company: string;
  tags: string[];
  note: string;
  optedOut: boolean;
  updatedAt: string | null;
}

interface ContactRowLike {
  name?: string | null;
  email?: string | null;
  company?: string | null;
  tags?: string | null;
  note?: string | null;
  updatedAt?: Date | string | null;
}

export function parseTags(json: string | null | undefined): string[] {
  try {
    const value = JSON.parse(json ?? "[]") as unknown;
    return Array.isArray(value) ? value.filter((t): t is string => typeof t === "string") : [];
  } catch {
    return [];
  }
}

function toContactView(number: string, row: ContactRowLike | null, optedOut: boolean): ContactView {
  return {
    number,
    saved: row !== null,
    name: row?.name ?? "",
    email: row?.email ?? "",
    company: row?.company ?? "",
    tags: parseTags(row?.tags),
    note: row?.note ?? "",
    optedOut,
    updatedAt: row?.updatedAt ? new Date(row.updatedAt).toISOString() : null,
  };
}

/** The digits of a number given in a path or a file (spaces, dots, dashes and brackets allowed), or InvalidRequest. */
export function contactNumber(input: string, field = "number"): string {
  const digits = validTn(input.replace(/[\s().-]/g, ""));
  if (digits === null) {
    throw new ApiError("InvalidRequest", { detail: `"${input}" is not a valid E.164 telephone number`, field });
  }
  return digits;
}

async function optedOutNumbers(accountId: string, numbers: string[]): Promise<Set<string>> {
  if (numbers.length === 0) return new Set();
  const rows = await db().optState.findMany({
    where: { accountId, number: { in: numbers }, status: "out" },
    select: { number: true },
  });
  return new Set(rows.map((r) => r.number));
}

/** A page of the account's contacts (saved ones and numbers of its conversations), with their opt-out state. */
export async function listContacts(input: { accountId: string; query: unknown }) {
  const { q, start, count, numbers } = parseInput(contactListQuery, input.query);
  if (numbers) {
    const rows = await db().contact.findMany({
      where: { accountId: input.accountId, number: { in: numbers } },
      orderBy: { number: "asc" },
    });
    const optedOut = await optedOutNumbers(input.accountId, numbers);
    const contacts = rows.map((r) => toContactView(r.number, r, optedOut.has(r.number)));
    return { contacts, total: contacts.length, start: 0, count: contacts.length };
  }
  const { rows, total } = await readContactList({ accountId: input.accountId, q, start, count });
  const out = await optedOutNumbers(
    input.accountId,
    rows.map((r) => r.number),
  );
  const contacts = rows.map((r) => toContactView(r.number, r.id === null ? null : r, out.has(r.number)));
  return { contacts, total, start, count: contacts.length };
}

/** One number as a contact: its saved fields, or an unnamed contact when nobody saved one. */
export async function getContact(input: { accountId: string; number: string }): Promise<ContactView> {
  const number = contactNumber(input.number);
  const [row, out] = await Promise.all([
    db().contact.findUnique({ where: { accountId_number: { accountId: input.accountId, number } } }),
    optedOutNumbers(input.accountId, [number]),
  ]);
  return toContactView(number, row, out.has(number));
}

export function parseContactInput(body: unknown): ContactInput {
  return parseInput(contactInput, body);
}

/** Who changed a contact, for the audit trail. */
export interface ContactAudit {
  actor: string;
  ip?: string;
}

/**
 * Creates or changes the contact of a number; fields left out keep their value. Audited; every open browser of
 * the account shows the new name.
 */
export async function saveContact(input: {
  accountId: string;
  number: string;
  fields: ContactInput;
  audit: ContactAudit;
}): Promise<ContactView> {
  const number = contactNumber(input.number);
  const { tags, ...rest } = input.fields;
  const data = { ...rest, ...(tags ? { tags: JSON.stringify(tags) } : {}) };
  const [row, out] = await Promise.all([
    db().contact.upsert({
      where: { accountId_number: { accountId: input.accountId, number } },
      create: { id: uuidv7(), accountId: input.accountId, number, ...data },
      update: data,
    }),
    optedOutNumbers(input.accountId, [number]),
  ]);
  await contactsChanged(input.accountId, "contact.updated", [number], input.audit);
  return toContactView(number, row, out.has(number));
}

/** Forgets what staff saved about a number: it stays a contact, unnamed. */
export async function deleteContact(input: {
  accountId: string;
  number: string;
  audit: ContactAudit;
}): Promise<{ deleted: boolean }> {
  const number = contactNumber(input.number);
  const { count } = await db().contact.deleteMany({ where: { accountId: input.accountId, number } });
  if (count > 0) await contactsChanged(input.accountId, "contact.deleted", [number], input.audit);
  return { deleted: count > 0 };
}

/** Records a change of contacts in the audit trail and tells the account's browsers. */
export async function contactsChanged(
  accountId: string,
  action: "contact.updated" | "contact.deleted" | "contacts.imported",
  numbers: string[],
  audit: ContactAudit & { detail?: string },
): Promise<void> {
  await recordAudit({
    accountId,
    actor: audit.actor,
    action,
    target: action === "contacts.imported" ? undefined : numbers[0],
    detail: audit.detail,
    ip: audit.ip,
  });
  announceContacts(accountId, numbers);
}

/** The saved names of some numbers of an account (numbers without a name are left out). */
export async function contactNames(accountId: string, numbers: string[]): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  if (numbers.length === 0) return names;
  const rows = await db().contact.findMany({
    where: { accountId, number: { in: [...new Set(numbers)] }, name: { not: "" } },
    select: { number: true, name: true },
  });
  for (const row of rows) names.set(row.number, row.name);
  return names;
}
