import { dbProvider } from "../db/client";
import {
  binder,
  boundValue,
  chunks,
  insertRowsSteps,
  placeholder,
  narrowingOnly,
  placeholderList,
  type ColumnKind,
} from "../db/insert-rows";
import { execute, query, readTransaction, writeTransaction, type Steps } from "../db/steps";

// Every statement on the webhook outbox (WebhookEvent, WebhookAttempt): the outbox's writes, the dispatcher's lease
// and outcomes, and the pruning of finished events. The callers decide when and in which transaction; the SQL of
// both databases is built here, through the db layer's placeholders and bound values.

/** A webhook event's columns (as the outbox writes one, and the seeded settled messages). */
export const WEBHOOK_EVENT_COLUMNS: [string, ColumnKind][] = [
  ["id", "text"],
  ["accountId", "text"],
  ["messageId", "text"],
  ["kind", "text"],
  ["segmentNumber", "int"],
  ["sequence", "int"],
  ["payload", "text"],
  ["status", "text"],
  ["attempts", "int"],
  ["nextAttemptAt", "date"],
  ["retryFrom", "date"],
  ["deliveredAt", "date"],
  ["createdAt", "date"],
];

/** A delivery attempt's columns (as the dispatcher logs one, and the seeded settled messages). */
export const WEBHOOK_ATTEMPT_COLUMNS: [string, ColumnKind][] = [
  ["eventId", "text"],
  ["accountId", "text"],
  ["at", "date"],
  ["url", "text"],
  ["httpStatus", "int"],
  ["latencyMs", "int"],
  ["error", "text"],
];

// --- the outbox -------------------------------------------------------------------------------------------------

/** The outbox's own writes: an event's columns, then its lease (owner and end; null when it is not leased). */
const OUTBOX_EVENT_COLUMNS: [string, ColumnKind][] = [
  ...WEBHOOK_EVENT_COLUMNS,
  ["leaseOwner", "text"],
  ["leaseUntil", "date"],
];

/** Event rows in WEBHOOK_EVENT_COLUMNS order, each followed by its lease's owner and end (or null, null). */
export function* insertWebhookEventsSteps(rows: unknown[][]): Steps<void> {
  yield* insertRowsSteps("WebhookEvent", OUTBOX_EVENT_COLUMNS, rows);
}

/** Of the given messages, those with an event still pending (leased or not). */
export function* messagesWithPendingEventsSteps(messageIds: string[]): Steps<Set<string>> {
  const pending = new Set<string>();
  for (const chunk of chunks(messageIds)) {
    const values: unknown[] = [];
    const list = placeholderList(values, chunk);
    const rows = yield* query<{ messageId: string }>(
      `SELECT DISTINCT "messageId" FROM "WebhookEvent" WHERE "messageId" IN (${list}) AND "status" = 'pending'`,
      values,
    );
    for (const row of rows) pending.add(row.messageId);
  }
  return pending;
}

/** A message as a delivery-status payload needs it, as the database gives it (SQLite: numbers may be BigInts). */
export interface WebhookMessageRow {
  id: string;
  accountId: string;
  fromNumber: string;
  toNumber: string;
  referenceId: string | null;
  numSegments: number | bigint;
  bulk: boolean | number | bigint;
}

/** The given messages whose account has a webhook URL configured (the others get no event). */
export function* messagesWithWebhookSteps(ids: string[]): Steps<WebhookMessageRow[]> {
  const messages: WebhookMessageRow[] = [];
  for (const chunk of chunks(ids)) {
    const values: unknown[] = [];
    const list = placeholderList(values, chunk);
    messages.push(
      ...(yield* query<WebhookMessageRow>(
        `SELECT m."id", m."accountId", m."fromNumber", m."toNumber", m."referenceId", m."numSegments", m."bulk"
         FROM "Message" m
         WHERE m."id" IN (${list})
           AND EXISTS (SELECT 1 FROM "WebhookEndpoint" w WHERE w."accountId" = m."accountId")`,
        values,
      )),
    );
  }
  return messages;
}

/** Whether the account has a webhook URL (events are written only then). */
export function* hasWebhookSteps(accountId: string): Steps<boolean> {
  const values: unknown[] = [];
  const bind = binder(values);
  const rows = yield* query(
    `SELECT 1 AS "one" FROM "WebhookEndpoint" WHERE "accountId" = ${bind("text", accountId)}`,
    values,
  );
  return rows.length > 0;
}

// --- the dispatcher's lease -------------------------------------------------------------------------------------

/** An event leased to a dispatcher, as it posts it. */
export interface ClaimedEvent {
  id: string;
  accountId: string;
  messageId: string;
  kind: string;
  segmentNumber: number | null;
  payload: string;
  attempts: number;
  retryFrom: Date;
}

/**
 * Due and not leased (or its lease expired), and no earlier event of its message still pending: events of one message
 * go in order. `now` gives the placeholder of the current time (called once per use: SQLite's are positional).
 */
function dueCondition(now: () => string): string {
  return `e."status" = 'pending' AND e."nextAttemptAt" <= ${now()} AND (e."leaseUntil" IS NULL OR e."leaseUntil" < ${now()})
      AND NOT EXISTS (SELECT 1 FROM "WebhookEvent" p WHERE p."messageId" = e."messageId" AND p."status" = 'pending'
        AND (p."createdAt" < e."createdAt" OR (p."createdAt" = e."createdAt" AND (p."sequence" < e."sequence"
          OR (p."sequence" = e."sequence" AND p."id" < e."id")))))`;
}

/**
 * Whether any event is due: a read, since most polls find nothing and on SQLite an UPDATE takes the write lock. On
 * SQLite a kept statement, not a Prisma query: the dispatcher asks several times a second.
 */
export async function anyDueEvent(now: Date): Promise<boolean> {
  const values: unknown[] = [];
  const bind = binder(values);
  const rows = await readTransaction(() =>
    query(`SELECT e."id" FROM "WebhookEvent" e WHERE ${dueCondition(() => bind("date", now))} LIMIT 1`, values),
  );
  return rows.length > 0;
}

/**
 * Leases up to `limit` due events to `owner` until `until`, oldest due first. PostgreSQL skips rows another
 * dispatcher is leasing at the same moment; SQLite serialises the statement. A leased event's next attempt is its
 * lease's end (when it is tried again if this attempt never records an outcome), so the events being posted sit
 * after the due ones in the claim's index instead of being read past by every claim. The limit is a parameter: one
 * statement, prepared once, whatever the number of free slots.
 */
export async function leaseDueEvents(input: {
  owner: string;
  limit: number;
  now: Date;
  until: Date;
}): Promise<ClaimedEvent[]> {
  const skipLocked = dbProvider() === "postgresql" ? " FOR UPDATE SKIP LOCKED" : "";
  const rows = await writeTransaction(function* () {
    const values: unknown[] = [];
    const bind = binder(values);
    return yield* query<Omit<ClaimedEvent, "retryFrom"> & { retryFrom: Date | string }>(
      `UPDATE "WebhookEvent" SET "leaseOwner" = ${bind("text", input.owner)}, "leaseUntil" = ${bind("date", input.until)},
         "nextAttemptAt" = ${bind("date", input.until)}
       WHERE "id" IN (
         SELECT e."id" FROM "WebhookEvent" e WHERE ${dueCondition(() => bind("date", input.now))}
         ORDER BY e."nextAttemptAt" LIMIT ${bind("int", input.limit)}${skipLocked})
       RETURNING "id", "accountId", "messageId", "kind", "segmentNumber", "payload", "attempts", "retryFrom"`,
      values,
    );
  });
  return rows.map((r) => ({
    ...r,
    segmentNumber: r.segmentNumber === null ? null : Number(r.segmentNumber),
    attempts: Number(r.attempts),
    retryFrom: new Date(r.retryFrom),
  }));
}

/**
 * Gives back leases `owner` took on events still pending: each event due again at `now`, for any dispatcher (those a
 * dispatcher had taken but not begun). A lease is named by its end as well: one that ran out and was taken again,
 * even by the same owner, is another lease, and is left alone.
 */
export function* releaseEventLeasesSteps(
  leases: { id: string; leaseUntil: number }[],
  owner: string,
  now: Date,
): Steps<number> {
  const byEnd = new Map<number, string[]>();
  for (const { id, leaseUntil } of leases) {
    const ids = byEnd.get(leaseUntil);
    if (ids) ids.push(id);
    else byEnd.set(leaseUntil, [id]);
  }
  let released = 0;
  for (const [end, ids] of byEnd) {
    for (const chunk of chunks(ids)) {
      const values: unknown[] = [];
      const bind = binder(values);
      released += yield* execute(
        `UPDATE "WebhookEvent" SET "leaseOwner" = NULL, "leaseUntil" = NULL, "nextAttemptAt" = ${bind("date", now)}
         WHERE "status" = 'pending' AND "leaseOwner" = ${bind("text", owner)}
           AND "leaseUntil" = ${bind("date", new Date(end))} AND "id" IN (${placeholderList(values, chunk)})`,
        values,
      );
    }
  }
  return released;
}

// --- the dispatcher's outcomes ----------------------------------------------------------------------------------

/** Attempt rows in WEBHOOK_ATTEMPT_COLUMNS order. */
export function* insertWebhookAttemptsSteps(rows: unknown[][]): Steps<void> {
  yield* insertRowsSteps("WebhookAttempt", WEBHOOK_ATTEMPT_COLUMNS, rows);
}

/**
 * Marks the accepted events delivered, those still pending only (a resend or another dispatcher may have been first),
 * and releases their lease; returns the ids it changed.
 */
export function* markEventsDeliveredSteps(ids: string[], now: Date): Steps<string[]> {
  const values: unknown[] = [boundValue("date", now)];
  const list = placeholderList(values, ids);
  const done = yield* query<{ id: string }>(
    `UPDATE "WebhookEvent" SET "status" = 'delivered', "attempts" = "attempts" + 1,
       "deliveredAt" = ${placeholder(1, "date")}, "leaseOwner" = NULL, "leaseUntil" = NULL, "lastError" = NULL
     WHERE ${narrowingOnly('"status"')} = 'pending' AND "id" IN (${list}) RETURNING "id"`,
    values,
  );
  return done.map((d) => d.id);
}

/**
 * A failed attempt: the event tried again at `nextAttemptAt`, or failed for good when that is null; either way no
 * longer leased. Only while `owner` still holds it pending. Returns the rows changed (0 or 1).
 */
export function* recordFailedAttemptSteps(input: {
  id: string;
  owner: string;
  attempts: number;
  error: string;
  nextAttemptAt: Date | null;
}): Steps<number> {
  const values: unknown[] = [];
  const bind = binder(values);
  return yield* execute(
    `UPDATE "WebhookEvent" SET "status" = ${bind("text", input.nextAttemptAt === null ? "failed" : "pending")},
       "attempts" = ${bind("int", input.attempts)}, "leaseOwner" = NULL, "leaseUntil" = NULL,
       "lastError" = ${bind("text", input.error)}
       ${input.nextAttemptAt === null ? "" : `, "nextAttemptAt" = ${bind("date", input.nextAttemptAt)}`}
     WHERE "id" = ${bind("text", input.id)} AND "status" = 'pending' AND "leaseOwner" = ${bind("text", input.owner)}`,
    values,
  );
}

// --- pruning ----------------------------------------------------------------------------------------------------

/**
 * Deletes up to `size` delivered or failed events last scheduled before `before`, with their attempts; returns how
 * many events went.
 */
export function* deleteFinishedEventsSteps(before: Date, size: number): Steps<number> {
  const values: unknown[] = [];
  const bind = binder(values);
  const events = yield* query<{ id: string }>(
    `DELETE FROM "WebhookEvent" WHERE "id" IN (
       SELECT "id" FROM "WebhookEvent" WHERE "status" IN ('delivered', 'failed') AND "nextAttemptAt" < ${bind("date", before)}
       LIMIT ${size})
     RETURNING "id"`,
    values,
  );
  if (events.length > 0) {
    const attempts: unknown[] = [];
    const bindAttempt = binder(attempts);
    yield* execute(
      `DELETE FROM "WebhookAttempt" WHERE "eventId" IN (${events.map((e) => bindAttempt("text", e.id)).join(", ")})`,
      attempts,
    );
  }
  return events.length;
}
