import { ApiError } from "../api/api-error";
import { parseInput } from "../api/parse-input";
import { db } from "../db/client";
import { uuidv7 } from "../db/ids";
import { validTn } from "../messaging/phone-number";
import { POSSIBLE_OPT_OUT } from "./apply-opt-keyword";
import { optChangeInput, optEventQuery, type OptChangeInput } from "./opt-schemas";

export type OptAction = "in" | "out";

function phoneDigits(number: string): string {
  const digits = validTn(number);
  if (digits === null) {
    throw new ApiError("InvalidRequest", {
      detail: `"${number}" is not a valid E.164 telephone number`,
      field: "number",
    });
  }
  return digits;
}

async function assertAccount(accountId: string): Promise<void> {
  const account = await db().account.findUnique({ where: { id: accountId }, select: { id: true } });
  if (!account) throw new ApiError("NotFound", { detail: `no account ${accountId}` });
}

/**
 * An admin opts a number out (a request by phone or e-mail, a flagged message read by staff) or back in (the
 * person asked again, in writing). Recorded in the audit trail with who did it. No message is sent.
 */
export async function setOptStatus(input: {
  accountId: string;
  number: string;
  action: OptAction;
  actor: string;
  note?: string;
}) {
  const number = phoneDigits(input.number);
  await assertAccount(input.accountId);
  const at = new Date();
  const event = await db().$transaction(async (tx) => {
    await tx.optState.upsert({
      where: { accountId_number: { accountId: input.accountId, number } },
      create: { accountId: input.accountId, number, status: input.action, changedAt: at },
      update: { status: input.action, changedAt: at },
    });
    return tx.optEvent.create({
      data: {
        id: uuidv7(at.getTime()),
        accountId: input.accountId,
        number,
        action: input.action,
        source: "admin",
        actor: input.actor,
        note: input.note ?? "",
        createdAt: at,
      },
    });
  });
  return toEventResult(event);
}

export function parseOptChange(body: unknown): OptChangeInput {
  return parseInput(optChangeInput, body);
}

type EventRow = Awaited<ReturnType<ReturnType<typeof db>["optEvent"]["create"]>>;

export interface OptEventResult {
  id: string;
  accountId: string;
  number: string;
  action: string;
  source: string;
  keyword: string;
  messageId: string;
  actor: string;
  note: string;
  createdAt: string;
}

function toEventResult(row: EventRow): OptEventResult {
  return {
    id: row.id,
    accountId: row.accountId,
    number: row.number,
    action: row.action,
    source: row.source,
    keyword: row.keyword ?? "",
    messageId: row.messageId ?? "",
    actor: row.actor,
    note: row.note,
    createdAt: row.createdAt.toISOString(),
  };
}

function dateParam(name: string, value: string | null | undefined): Date | undefined {
  if (value === null || value === undefined || value === "") return undefined;
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) {
    throw new ApiError("InvalidRequest", { detail: `${name}: not an ISO 8601 date or date-time`, field: name });
  }
  return date;
}

export interface OptEventFilter {
  accountId: string;
  number?: string | null;
  action?: string | null;
  /** keyword or admin. */
  source?: string | null;
  /** Inclusive. */
  since?: string | null;
  /** Exclusive. */
  until?: string | null;
}

function eventWhere(filter: OptEventFilter) {
  const since = dateParam("since", filter.since);
  const until = dateParam("until", filter.until);
  if (filter.action && filter.action !== "in" && filter.action !== "out") {
    throw new ApiError("InvalidRequest", { detail: "action: in or out", field: "action" });
  }
  if (filter.source && filter.source !== "keyword" && filter.source !== "admin") {
    throw new ApiError("InvalidRequest", { detail: "source: keyword or admin", field: "source" });
  }
  return {
    accountId: filter.accountId,
    ...(filter.number ? { number: phoneDigits(filter.number) } : {}),
    ...(filter.action ? { action: filter.action } : {}),
    ...(filter.source ? { source: filter.source } : {}),
    ...(since || until ? { createdAt: { ...(since ? { gte: since } : {}), ...(until ? { lt: until } : {}) } } : {}),
  };
}

/** The audit trail, newest first, a page at a time. */
export async function listOptEvents(filter: OptEventFilter & { start?: number; count?: number }) {
  const where = eventWhere(filter);
  const start = filter.start ?? 0;
  const count = filter.count ?? 100;
  const [total, rows] = await Promise.all([
    db().optEvent.count({ where }),
    db().optEvent.findMany({ where, orderBy: [{ createdAt: "desc" }, { id: "desc" }], skip: start, take: count }),
  ]);
  return { total, start, count: rows.length, events: rows.map(toEventResult) };
}

const CSV_COLUMNS = [
  "createdAt",
  "number",
  "action",
  "source",
  "keyword",
  "messageId",
  "actor",
  "note",
  "accountId",
  "id",
] as const;

// RFC 4180 quoting; a leading = + - @ is defused so a spreadsheet never runs a note as a formula.
export function csvField(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** The whole audit trail matching the filter, oldest first, as CSV with a header row. */
export async function exportOptEventsCsv(filter: OptEventFilter): Promise<string> {
  const where = eventWhere(filter);
  const lines = [CSV_COLUMNS.join(",")];
  let cursor: string | undefined;
  for (;;) {
    const rows = await db().optEvent.findMany({
      where: cursor ? { ...where, id: { gt: cursor } } : where,
      orderBy: { id: "asc" },
      take: 5000,
    });
    for (const row of rows) {
      const event = toEventResult(row);
      lines.push(CSV_COLUMNS.map((column) => csvField(event[column])).join(","));
    }
    if (rows.length < 5000) break;
    cursor = rows[rows.length - 1]!.id;
  }
  return `${lines.join("\r\n")}\r\n`;
}

/** Numbers with an opt record for the account (not those that only received a footer), newest change first. */
export async function listOptStates(input: {
  accountId: string;
  status?: string | null;
  start?: number;
  count?: number;
}) {
  if (input.status && input.status !== "in" && input.status !== "out") {
    throw new ApiError("InvalidRequest", { detail: "status: in or out", field: "status" });
  }
  const where = { accountId: input.accountId, status: input.status ? input.status : { in: ["in", "out"] } };
  const [rows, total] = await Promise.all([
    db().optState.findMany({
      where,
      orderBy: [{ changedAt: "desc" }, { number: "asc" }],
      skip: input.start ?? 0,
      take: input.count ?? 10_000,
    }),
    db().optState.count({ where }),
  ]);
  return {
    total,
    numbers: rows.map((row) => ({
      number: row.number,
      status: row.status,
      changedAt: row.changedAt?.toISOString() ?? null,
      lastFooterAt: row.lastFooterAt?.toISOString() ?? null,
    })),
  };
}

/** Inbound texts that mention stopping without being a keyword, for staff to read (newest first). */
export async function listOptFlags(input: { accountId: string; conversationId?: string | null }) {
  const rows = await db().messageFlag.findMany({
    where: {
      accountId: input.accountId,
      kind: POSSIBLE_OPT_OUT,
      ...(input.conversationId ? { conversationId: input.conversationId } : {}),
    },
    orderBy: { createdAt: "desc" },
    take: 1000,
  });
  const messages = await db().message.findMany({
    where: { id: { in: rows.map((r) => r.messageId) }, accountId: input.accountId },
    select: { id: true, fromNumber: true, body: true },
  });
  const byId = new Map(messages.map((m) => [m.id, m]));
  return rows.map((row) => ({
    messageId: row.messageId,
    conversationId: row.conversationId ?? "",
    kind: row.kind,
    number: byId.get(row.messageId)?.fromNumber ?? "",
    body: byId.get(row.messageId)?.body ?? "",
    createdAt: row.createdAt.toISOString(),
  }));
}

/** The audit trail's query string (number, action, source, since, until, start, count, format), parsed. */
export function readEventQuery(accountId: string, query: Record<string, string>) {
  return { accountId, ...parseInput(optEventQuery, query) };
}
