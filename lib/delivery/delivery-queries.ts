import { dbProvider } from "../db/client";
import {
  binder,
  boundValue,
  chunks,
  insertRowsSteps,
  placeholder,
  narrowingOnly,
  sqliteIndexedBy,
  placeholderList,
  type ColumnKind,
} from "../db/insert-rows";
import { execute, query, type Steps } from "../db/steps";
import { QUEUED_STATUSES } from "../messaging/message-status";

// The delivery domain's statements on messages and their parts: a change to many messages, the receipts' claims and
// reads, the expiry of parts whose receipt never came. Statements are steps (lib/db/steps.ts), run in the callers'
// transactions; the callers (record-transitions.ts, record-receipt.ts, expire-messages.ts) keep the decisions.
// The worker's rounds have theirs in round-queries.ts, the simulator's owed receipts in owed-receipt-queries.ts.

/**
 * The statuses of a message still in the queue, as an SQL list of literals (constants, never user input). The queue's
 * partial index ("Message_queue_idx", migration 20261128110000_partial_queue_indexes) repeats this list as its
 * condition: the queries must write it the same way for the planners to use the index.
 */
export const QUEUED_SQL = QUEUED_STATUSES.map((s) => `'${s}'`).join(", ");

/** The queue's partial index's condition, as the queries must write it (columns qualified by `alias` when given). */
export function inQueueSql(alias = ""): string {
  const column = (name: string) => (alias ? `${alias}."${name}"` : `"${name}"`);
  return `${column("direction")} = 'outbound' AND ${column("status")} IN (${QUEUED_SQL})`;
}

/** A change to messages: a recorded answer's, a message settled by its receipts, one refused before it left. */
export interface MessageChange {
  partsSubmitted?: number;
  attempts?: number;
  nextAttemptAt?: Date | null;
  status?: string;
  expiresAt?: Date;
  rejectReason?: string;
  /** An outbound MMS's media once fetched and fitted (JSON array of URLs), and its media state (lib/media). */
  media?: string;
  mediaState?: string;
  /** A scheduled message's time (null: held, as a paused campaign's messages are). */
  sendAt?: Date | null;
}

const CHANGE_KINDS: Record<keyof MessageChange, ColumnKind> = {
  partsSubmitted: "int",
  attempts: "int",
  nextAttemptAt: "date",
  status: "text",
  expiresAt: "date",
  rejectReason: "text",
  media: "text",
  mediaState: "text",
  sendAt: "date",
};

/** Only messages still in one of these statuses (and with this many parts out, when given) take a change. */
export interface MessageGuard {
  status: readonly string[];
  partsSubmitted?: number;
  /** Only outbound MMS still waiting for their media (lib/media/prepare-outbound.ts). */
  mediaState?: string;
}

/**
 * One change to many messages (and their updatedAt), one statement a chunk. With a guard, only the messages that
 * still match it change, and their ids come back (RETURNING); without one, nothing comes back.
 */
export function* updateMessagesSteps(
  data: MessageChange,
  ids: string[],
  now: Date,
  guard?: MessageGuard,
): Steps<string[]> {
  const changed: string[] = [];
  for (const chunk of chunks(ids)) {
    const values: unknown[] = [];
    const bind = binder(values);
    const set = (Object.keys(data) as (keyof MessageChange)[]).map(
      (column) => `"${column}" = ${bind(CHANGE_KINDS[column], data[column])}`,
    );
    set.push(`"updatedAt" = ${bind("date", now)}`);
    const sql = `UPDATE "Message" SET ${set.join(", ")} WHERE "id" IN (${placeholderList(values, chunk)})`;
    if (!guard) {
      yield* execute(sql, values);
      continue;
    }
    let where = ` AND ${narrowingOnly('"status"')} IN (${placeholderList(values, guard.status)})`;
    if (guard.partsSubmitted !== undefined) where += ` AND "partsSubmitted" = ${bind("int", guard.partsSubmitted)}`;
    if (guard.mediaState !== undefined) where += ` AND "mediaState" = ${bind("text", guard.mediaState)}`;
    for (const row of yield* query<{ id: string }>(`${sql}${where} RETURNING "id"`, values)) changed.push(row.id);
  }
  return changed;
}

/** Sets waiting parts' answers; returns the carrier ids of the parts this statement changed. */
export function* claimPartsSteps(carrierIds: string[], status: string, at: Date): Steps<string[]> {
  const claimed: string[] = [];
  for (const chunk of chunks(carrierIds)) {
    const values: unknown[] = [boundValue("text", status), boundValue("date", at)];
    const rows = yield* query<{ carrierMessageId: string }>(
      `UPDATE "MessagePart" SET "status" = ${placeholder(1, "text")}, "receiptAt" = ${placeholder(2, "date")}
       WHERE ${narrowingOnly('"status"')} = 'wait_dlr' AND "carrierMessageId" IN (${placeholderList(values, chunk)})
       RETURNING "carrierMessageId"`,
      values,
    );
    for (const row of rows) claimed.push(row.carrierMessageId);
  }
  return claimed;
}

/** A part a receipt answered, with what its message's SDRs and settling need (as the database gives them). */
export interface AnsweredPartRow {
  carrierMessageId: string;
  segmentNumber: number | bigint;
  id: string;
  accountId: string;
  referenceId: string | null;
  numSegments: number | bigint;
  partsSubmitted: number | bigint;
}

/** The parts (by carrier id) with their messages. */
export function* partsWithMessagesSteps(carrierIds: string[]): Steps<AnsweredPartRow[]> {
  const parts: AnsweredPartRow[] = [];
  for (const chunk of chunks(carrierIds)) {
    const values: unknown[] = [];
    parts.push(
      ...(yield* query<AnsweredPartRow>(
        `SELECT p."carrierMessageId", p."segmentNumber", m."id", m."accountId", m."referenceId", m."numSegments",
                m."partsSubmitted"
         FROM "MessagePart" p JOIN "Message" m ON m."id" = p."messageId"
         WHERE p."carrierMessageId" IN (${placeholderList(values, chunk)})`,
        values,
      )),
    );
  }
  return parts;
}

/** Of these carrier ids, those whose part exists and already has its answer. */
export function* answeredPartsSteps(carrierIds: string[]): Steps<Set<string>> {
  const answered = new Set<string>();
  for (const chunk of chunks(carrierIds)) {
    const values: unknown[] = [];
    const rows = yield* query<{ carrierMessageId: string }>(
      `SELECT "carrierMessageId" FROM "MessagePart"
       WHERE "carrierMessageId" IN (${placeholderList(values, chunk)}) AND "status" <> 'wait_dlr'`,
      values,
    );
    for (const row of rows) answered.add(row.carrierMessageId);
  }
  return answered;
}

/**
 * The parts of these messages and their statuses. On PostgreSQL the messages are locked first, in one order: two
 * transactions answering two parts of one message would each read the other's part as still waiting (each statement
 * sees what was committed when it began) and neither would settle it; the lock makes the second wait for the first
 * and then read its part's answer. (NO KEY UPDATE: SDRs inserted by either hold key-share locks on their message,
 * which a plain FOR UPDATE would deadlock against.)
 */
export function* lockedPartStatusesSteps(messageIds: string[]): Steps<{ messageId: string; status: string }[]> {
  const parts: { messageId: string; status: string }[] = [];
  for (const chunk of chunks(messageIds)) {
    if (dbProvider() === "postgresql") {
      const values: unknown[] = [];
      yield* query(
        `SELECT "id" FROM "Message" WHERE "id" IN (${placeholderList(values, chunk)}) ORDER BY "id" FOR NO KEY UPDATE`,
        values,
      );
    }
    const values: unknown[] = [];
    parts.push(
      ...(yield* query<{ messageId: string; status: string }>(
        `SELECT "messageId", "status" FROM "MessagePart" WHERE "messageId" IN (${placeholderList(values, chunk)})`,
        values,
      )),
    );
  }
  return parts;
}

/** A part still waiting for its receipt past its message's validity (as the database gives it). */
export interface OverduePartRow {
  id: string;
  segmentNumber: number | bigint;
  messageId: string;
  accountId: string;
  referenceId: string | null;
  numSegments: number | bigint;
  partsSubmitted: number | bigint;
}

/** Up to `limit` parts waiting for a receipt whose message's validity ended before `now`. */
export function* overduePartsSteps(now: Date, limit: number): Steps<OverduePartRow[]> {
  const values: unknown[] = [];
  const bind = binder(values);
  return yield* query<OverduePartRow>(
    `SELECT p."id", p."segmentNumber", m."id" AS "messageId", m."accountId", m."referenceId", m."numSegments",
            m."partsSubmitted"
     FROM "MessagePart" p JOIN "Message" m ON m."id" = p."messageId"
     WHERE p."status" = 'wait_dlr' AND m."expiresAt" < ${bind("date", now)}
     LIMIT ${Math.floor(limit)}`,
    values,
  );
}

export interface DueRow {
  id: string;
  accountId: string;
  referenceId: string | null;
  bulk: boolean | number | bigint;
}

export interface LapsedRow {
  id: string;
  accountId: string;
  referenceId: string | null;
  numSegments: number | bigint;
}

/**
 * Up to `limit` scheduled messages whose sendAt has come, earliest first. The predicate is the partial index
 * "Message_scheduled_idx"'s (migration send_options).
 */
export function* dueSchedulesSteps(now: Date, limit: number): Steps<DueRow[]> {
  const values: unknown[] = [];
  const bind = binder(values);
  return yield* query<DueRow>(
    `SELECT "id", "accountId", "referenceId", "bulk" FROM "Message"
     WHERE "status" = 'scheduled' AND "sendAt" <= ${bind("date", now)}
     ORDER BY "sendAt" LIMIT ${Math.floor(limit)}`,
    values,
  );
}

/**
 * Up to `limit` waiting messages (nothing handed to the carrier) whose validity ended by `now`. The predicate is the
 * partial index "Message_validity_idx"'s, word for word (migration send_options), and SQLite is told to use it.
 */
export function* lapsedSteps(now: Date, limit: number): Steps<LapsedRow[]> {
  const values: unknown[] = [];
  const bind = binder(values);
  const waiting = yield* query<LapsedRow>(
    `SELECT "id", "accountId", "referenceId", "numSegments" FROM "Message"${sqliteIndexedBy("Message_validity_idx")}
     WHERE "status" IN ('scheduled', 'queued') AND "validUntil" IS NOT NULL
       AND "validUntil" <= ${bind("date", now)} AND "partsSubmitted" = 0
     LIMIT ${Math.floor(limit)}`,
    values,
  );
  if (waiting.length >= limit) return waiting;
  // Held messages (lib/guard) are few, on a partial index of their own ("Message_held_idx", migration guard_rails).
  const held = yield* query<LapsedRow>(
    `SELECT "id", "accountId", "referenceId", "numSegments" FROM "Message"
     WHERE "status" = 'held' AND "validUntil" <= ${placeholder(1, "date")}
     LIMIT ${Math.floor(limit - waiting.length)}`,
    [boundValue("date", now)],
  );
  return [...waiting, ...held];
}

/** Marks still-waiting parts (by id) `expired`; returns the ids this statement changed. */
export function* expirePartsSteps(ids: string[], at: Date): Steps<string[]> {
  const expired: string[] = [];
  for (const chunk of chunks(ids)) {
    const values: unknown[] = [boundValue("date", at)];
    const rows = yield* query<{ id: string }>(
      `UPDATE "MessagePart" SET "status" = 'expired', "receiptAt" = ${placeholder(1, "date")}
       WHERE ${narrowingOnly('"status"')} = 'wait_dlr' AND "id" IN (${placeholderList(values, chunk)}) RETURNING "id"`,
      values,
    );
    for (const row of rows) expired.push(row.id);
  }
  return expired;
}

// The simulator carrier's owed receipts (SimulatorReceipt, lib/carriers/simulator/owed-receipts.ts): written in
// batches as parts are submitted, deleted in batches once recorded, claimed with a renewable lease.

/** A receipt the simulator owes, as stored. */
export interface OwedReceiptRow {
  carrierMessageId: string;
  status: string;
  text: string;
  submittedAt: Date;
  dueAt: Date;
}

const OWED_COLUMNS: [string, ColumnKind][] = [
  ["carrierMessageId", "text"],
  ["status", "text"],
  ["text", "text"],
  ["submittedAt", "date"],
  ["dueAt", "date"],
  ["claimedBy", "text"],
  ["claimedUntil", "date"],
];

/** Statements bind at most this many ids (SQLite allows 32,766 parameters). */
const OWED_CHUNK = 5_000;

/** Stores receipts, held by `owner` until `claimedUntil`, in one statement per few thousand rows. */
export function* storeOwedSteps(receipts: OwedReceiptRow[], owner: string, claimedUntil: Date): Steps<void> {
  yield* insertRowsSteps(
    "SimulatorReceipt",
    OWED_COLUMNS,
    receipts.map((r) => [r.carrierMessageId, r.status, r.text, r.submittedAt, r.dueAt, owner, claimedUntil]),
  );
}

export function* deleteOwedSteps(ids: string[]): Steps<void> {
  for (const chunk of chunks(ids, OWED_CHUNK)) {
    const values: unknown[] = [];
    yield* execute(
      `DELETE FROM "SimulatorReceipt" WHERE "carrierMessageId" IN (${placeholderList(values, chunk)})`,
      values,
    );
  }
}

/** Sets the claim of every receipt `owner` holds: renewed until `claimedUntil`, or given back (owner null). */
export function* setOwedClaimsSteps(owner: string, claimedBy: string | null, claimedUntil: Date): Steps<void> {
  const values: unknown[] = [];
  const bind = binder(values);
  yield* execute(
    `UPDATE "SimulatorReceipt" SET "claimedBy" = ${bind("text", claimedBy)}, "claimedUntil" = ${bind("date", claimedUntil)}
     WHERE "claimedBy" = ${bind("text", owner)}`,
    values,
  );
}

/** Whether any receipt is held by nobody at `now` (a read, so that the usual answer takes no write lock). */
export function* anyUnheldSteps(now: Date): Steps<boolean> {
  const values: unknown[] = [];
  const rows = yield* query(
    `SELECT 1 AS "one" FROM "SimulatorReceipt" WHERE "claimedUntil" < ${binder(values)("date", now)} LIMIT 1`,
    values,
  );
  return rows.length > 0;
}

/**
 * Claims up to `limit` receipts nobody holds, earliest due first, and returns them. The outer condition is checked
 * again on PostgreSQL against a row another simulator claimed meanwhile, so two simulators never both take one.
 */
export function* claimUnheldSteps(
  owner: string,
  claimedUntil: Date,
  now: Date,
  limit: number,
): Steps<(Omit<OwedReceiptRow, "submittedAt" | "dueAt"> & { submittedAt: Date | string; dueAt: Date | string })[]> {
  const values: unknown[] = [];
  const bind = binder(values);
  return yield* query(
    `UPDATE "SimulatorReceipt" SET "claimedBy" = ${bind("text", owner)}, "claimedUntil" = ${bind("date", claimedUntil)}
     WHERE "claimedUntil" < ${bind("date", now)} AND "carrierMessageId" IN (
       SELECT "carrierMessageId" FROM "SimulatorReceipt" WHERE "claimedUntil" < ${bind("date", now)}
       ORDER BY "dueAt" LIMIT ${Math.floor(limit)}
     ) RETURNING "carrierMessageId", "status", "text", "submittedAt", "dueAt"`,
    values,
  );
}
