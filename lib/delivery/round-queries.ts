import { dbProvider } from "../db/client";
import { execute, query, readTransaction, type Steps } from "../db/steps";
import {
  binder,
  chunks,
  narrowingOnly,
  placeholder,
  placeholderList,
  sqliteBound,
  sqliteIndexedBy,
} from "../db/insert-rows";
import type { Encoding } from "../segments/count-segments";
import { inQueueSql } from "./delivery-queries";
import { destinationTimeZone } from "./destination-time-zone";
import { bulkDestinations, type AccountState, type QueuedMessage } from "./plan-round";

// Every statement the delivery worker runs for its rounds: claiming and giving back numbers, reading the queues and
// accounts a round is planned from, the account slots and lease checks of its reservation (reserve-round.ts), and
// the lease check its answers are recorded under. Changes to messages go through recordTransitions.
// Statements are steps (lib/db/steps.ts), so that a transaction made of several runs in one synchronous go on SQLite.

/** A number this worker holds, as stored. */
export interface HeldRow {
  number: string;
  accountId: string;
  ratePerSecond: number;
  nextSendAt: Date | string | null;
  leaseUntil: Date | string | null;
}

/** The numbers with outbound messages waiting or being sent, at most `limit` of them. */
export function* pendingNumbersSteps(limit: number): Steps<string[]> {
  const pending = yield* query<{ fromNumber: string }>(
    `SELECT DISTINCT "fromNumber" FROM "Message"${sqliteIndexedBy("Message_queue_idx")}
     WHERE ${inQueueSql()} LIMIT ${limit}`,
  );
  return pending.map((p) => p.fromNumber);
}

/** Takes or renews the lease on those of `numbers` that nobody else holds, or whose lease has run out. */
export function* leaseNumbersSteps(workerId: string, numbers: string[], now: number, leaseMs: number): Steps<void> {
  for (const chunk of chunks(numbers)) {
    const values: unknown[] = [];
    const bind = binder(values);
    yield* execute(
      `UPDATE "PhoneNumber" SET "leaseOwner" = ${bind("text", workerId)}, "leaseUntil" = ${bind("date", new Date(now + leaseMs))}
         WHERE "number" IN (${placeholderList(values, chunk)})
           AND ("leaseOwner" IS NULL OR "leaseOwner" = ${bind("text", workerId)} OR "leaseUntil" < ${bind("date", new Date(now))})`,
      values,
    );
  }
}

/** The numbers whose lease names this worker. */
export function* heldNumbersSteps(workerId: string): Steps<HeldRow[]> {
  const values: unknown[] = [];
  return yield* query<HeldRow>(
    `SELECT "number", "accountId", "ratePerSecond", "nextSendAt", "leaseUntil" FROM "PhoneNumber"
       WHERE "leaseOwner" = ${binder(values)("text", workerId)}`,
    values,
  );
}

/**
 * Gives numbers back, writing their next slots (`slotOf`, when it has one): a chunk's numbers with a slot in one
 * statement, joined to a table of (number, slot), the others in another. A `CASE "number" WHEN … THEN …` per number
 * compared each row with every number (7–8 ms of the write lock to give back 1,200 numbers).
 */
export function* releaseNumbersSteps(
  workerId: string,
  numbers: string[],
  slotOf: (number: string) => number | null | undefined,
): Steps<void> {
  const postgres = dbProvider() === "postgresql";
  for (const chunk of chunks(numbers, 5_000)) {
    const slotted = chunk.filter((n) => slotOf(n));
    if (slotted.length > 0) {
      const values: unknown[] = [];
      const bind = binder(values);
      // Placeholders in the order they appear (SQLite's are positional): the slots first, then the owner.
      const slots = postgres
        ? `(VALUES ${slotted.map((n) => `(${bind("text", n)}, ${bind("date", new Date(slotOf(n)!))})`).join(", ")}) AS s(n, at)`
        : `(SELECT value ->> 0 AS n, value ->> 1 AS at FROM json_each(${bind("text", JSON.stringify(slotted.map((n) => [n, sqliteBound("date", new Date(slotOf(n)!))])))})) AS s`;
      yield* execute(
        `UPDATE "PhoneNumber" SET "leaseOwner" = NULL, "leaseUntil" = NULL, "nextSendAt" = s.at FROM ${slots}
           WHERE ${narrowingOnly('"leaseOwner"')} = ${bind("text", workerId)} AND "number" = s.n`,
        values,
      );
    }
    const unslotted = chunk.filter((n) => !slotOf(n));
    if (unslotted.length === 0) continue;
    const values: unknown[] = [];
    const owner = binder(values)("text", workerId);
    const list = placeholderList(values, unslotted);
    yield* execute(
      `UPDATE "PhoneNumber" SET "leaseOwner" = NULL, "leaseUntil" = NULL
         WHERE "leaseOwner" = ${owner} AND "number" IN (${list})`,
      values,
    );
  }
}

/** Of `numbers`, those whose lease still names this worker, their rows locked until the transaction ends. */
export function* lockHeldNumbersSteps(workerId: string, numbers: string[]): Steps<string[]> {
  const values: unknown[] = [workerId];
  const list = placeholderList(values, numbers);
  // An UPDATE that changes nothing, for its row locks (PostgreSQL) or the write lock (SQLite): a claim by
  // another worker waits for this transaction, and then sees the round recorded.
  const held = yield* query<{ number: string }>(
    `UPDATE "PhoneNumber" SET "leaseOwner" = "leaseOwner"
       WHERE "leaseOwner" = ${placeholder(1, "text")} AND "number" IN (${list}) RETURNING "number"`,
    values,
  );
  return held.map((h) => h.number);
}

interface QueuedRow {
  id: string;
  accountId: string;
  fromNumber: string;
  toNumber: string;
  body: string;
  media: string;
  numSegments: number | bigint;
  encoding: string;
  bulk: boolean | number | bigint;
  status: string;
  partsSubmitted: number | bigint;
  attempts: number | bigint;
  nextAttemptAt: Date | string | null;
  createdAt: Date | string;
  referenceId: string | null;
  validUntil: Date | string | null;
}

/** The first few messages of each number's queue, in the order pacing serves them, as a round at `now` needs them. */
export async function loadQueues(numbers: string[], now: number): Promise<Map<string, QueuedMessage[]>> {
  const rows = await readTransaction(() => queueSteps(numbers, now));
  const queues = new Map<string, QueuedMessage[]>();
  for (const m of rows) {
    const list = queues.get(m.fromNumber) ?? [];
    const partsSubmitted = Number(m.partsSubmitted);
    list.push({
      messageId: m.id,
      accountId: m.accountId,
      from: m.fromNumber,
      to: m.toNumber,
      body: m.body,
      media: JSON.parse(m.media) as string[],
      numSegments: Number(m.numSegments),
      encoding: m.encoding as Encoding,
      bulk: Boolean(m.bulk),
      inProgress: m.status === "sending" && partsSubmitted > 0,
      partsSubmitted,
      attempts: Number(m.attempts),
      eligibleAt: storedTime(m.nextAttemptAt),
      createdAt: storedTime(m.createdAt)!,
      referenceId: m.referenceId,
      validUntil: storedTime(m.validUntil),
    });
    queues.set(m.fromNumber, list);
  }
  return queues;
}

/** How many of a number's waiting messages a round reads: the next one that may leave is among them. */
const QUEUE_LOOKAHEAD = 4;

const QUEUE_COLUMNS = `m."id", m."accountId", m."fromNumber", m."toNumber", m."body", m."media", m."numSegments",
  m."encoding", m."bulk", m."status", m."partsSubmitted", m."attempts", m."nextAttemptAt", m."createdAt",
  m."referenceId", m."validUntil"`;

/**
 * The messages of each number's queue that a round at `now` chooses from. On SQLite each number's head is read first;
 * where it is a waiting ad hoc message that may leave now (no message being sent before it), planRound takes it
 * whatever follows, so only the other numbers' first four are read. A round of numbers with queues of ad hoc messages
 * reads a row a number instead of four (each message was read about three and a half times while it waited).
 */
function* queueSteps(numbers: string[], now: number): Steps<QueuedRow[]> {
  // PostgreSQL ranks each number's whole backlog whatever the lookahead: one read of the first four.
  if (dbProvider() === "postgresql") return yield* queueRowsSteps(numbers, QUEUE_LOOKAHEAD);
  const heads = yield* queueRowsSteps(numbers, 1);
  const rowsOf = new Map<string, QueuedRow[]>();
  for (const row of heads) {
    const rows = rowsOf.get(row.fromNumber);
    if (rows) rows.push(row);
    else rowsOf.set(row.fromNumber, [row]);
  }
  const unsettled = new Set<string>();
  for (const [number, rows] of rowsOf) if (rows.length > 1 || !leavesFirst(rows[0]!, now)) unsettled.add(number);
  if (unsettled.size === 0) return heads;
  const rest = yield* queueRowsSteps([...unsettled], QUEUE_LOOKAHEAD);
  return [...heads.filter((row) => !unsettled.has(row.fromNumber)), ...rest];
}

/**
 * A number's only row at the head of its queue that planRound chooses whatever follows it: waiting (no message being
 * sent comes before it), ad hoc (the bulk lane's messages come after it, and may wait for their window), due (not
 * waiting for a retry) and within its validity. Those behind it are waiting and ad hoc or bulk, and come after it.
 */
function leavesFirst(row: QueuedRow, now: number): boolean {
  const due = storedTime(row.nextAttemptAt);
  const validUntil = storedTime(row.validUntil);
  return (
    row.status === "queued" &&
    !Number(row.bulk) &&
    (due === null || due <= now) &&
    (validUntil === null || Number(row.partsSubmitted) > 0 || validUntil > now)
  );
}

/**
 * The first `lookahead` messages of each number's queue (sending first, then ad hoc before bulk, oldest first),
 * leaving out MMS whose media are still being fetched and fitted (lib/media/prepare-outbound.ts): they join the queue
 * once ready. On SQLite, with a lookahead of 1, every message being sent and the first waiting one.
 */
function* queueRowsSteps(numbers: string[], lookahead: number): Steps<QueuedRow[]> {
  if (dbProvider() !== "postgresql") return yield* sqliteQueueSteps(numbers, lookahead);
  const rows: QueuedRow[] = [];
  for (const chunk of chunks(numbers)) {
    const values: unknown[] = [];
    const list = placeholderList(values, chunk);
    rows.push(
      ...(yield* query<QueuedRow>(
        `SELECT ${QUEUE_COLUMNS}
         FROM (
           SELECT "id", ROW_NUMBER() OVER (
             PARTITION BY "fromNumber"
             ORDER BY CASE WHEN "status" = 'sending' THEN 0 ELSE 1 END, "bulk", "createdAt", "id"
           ) AS "rank"
           FROM "Message"
           WHERE ${inQueueSql()} AND "fromNumber" IN (${list})
             AND "mediaState" = ''
         ) ranked JOIN "Message" m ON m."id" = ranked."id"
         WHERE ranked."rank" <= ${lookahead}
         ORDER BY m."fromNumber", ranked."rank"`,
        values,
      )),
    );
  }
  return rows;
}

/**
 * SQLite: each number's messages being sent, and its first `lookahead` queued ones in the queue index's order (ad hoc
 * before bulk, oldest first), so that a round reads a few index entries a number rather than ranking its whole backlog
 * (half the time with sixteen messages waiting a number); the first `lookahead` of both, in the queue's order, are
 * kept, all of them with a lookahead of 1 (whether messages are being sent decides whether more are read).
 */
function* sqliteQueueSteps(numbers: string[], lookahead: number): Steps<QueuedRow[]> {
  // `"status" IN (…)` beside `"status" = …` spells the queue index's own condition, which SQLite needs to see to use
  // a partial index.
  const waiting = (status: string, rest: string) =>
    `SELECT rowid AS "r" FROM "Message" INDEXED BY "Message_queue_idx"
     WHERE "fromNumber" = n."value" AND ${inQueueSql()}
       AND "status" = '${status}' AND "mediaState" = ''${rest}`;
  const rows = yield* query<QueuedRow>(
    `SELECT ${QUEUE_COLUMNS}
     FROM json_each(?) n JOIN "Message" m ON m.rowid IN (
       ${waiting("sending", "")}
       UNION ALL
       SELECT "r" FROM (${waiting("queued", ` ORDER BY "bulk", "createdAt", "id" LIMIT ${lookahead}`)})
     )
     ORDER BY m."fromNumber", CASE WHEN m."status" = 'sending' THEN 0 ELSE 1 END, m."bulk", m."createdAt", m."id"`,
    [JSON.stringify(numbers)],
  );
  if (lookahead === 1) return rows;
  const kept: QueuedRow[] = [];
  let number: string | null = null;
  let taken = 0;
  for (const row of rows) {
    if (row.fromNumber !== number) {
      number = row.fromNumber;
      taken = 0;
    }
    if (taken++ < lookahead) kept.push(row);
  }
  return kept;
}

interface AccountRow {
  id: string;
  rateLimitPerSecond: number;
  bulkShare: number;
  nextSendAt: Date | string | null;
  bulkNextSendAt: Date | string | null;
  timeZone: string;
  bulkWindowStart: string;
  bulkWindowEnd: string;
}

export async function loadAccounts(ids: string[]): Promise<Map<string, AccountState>> {
  const accounts = await readTransaction(() => accountSteps(ids));
  return new Map(
    accounts.map((a) => {
      const nextSendAt = storedTime(a.nextSendAt);
      const bulkNextSendAt = storedTime(a.bulkNextSendAt);
      return [
        a.id,
        {
          id: a.id,
          pace: {
            nextSendAt,
            bulkNextSendAt,
            ratePerSecond: Number(a.rateLimitPerSecond),
            bulkShare: Number(a.bulkShare),
          },
          stored: {
            nextSendAt: nextSendAt === null ? null : new Date(nextSendAt),
            bulkNextSendAt: bulkNextSendAt === null ? null : new Date(bulkNextSendAt),
          },
          timeZone: a.timeZone,
          window: { start: a.bulkWindowStart, end: a.bulkWindowEnd },
        },
      ];
    }),
  );
}

function* accountSteps(ids: string[]): Steps<AccountRow[]> {
  const values: unknown[] = [];
  return yield* query<AccountRow>(
    `SELECT "id", "rateLimitPerSecond", "bulkShare", "nextSendAt", "bulkNextSendAt", "timeZone", "bulkWindowStart",
            "bulkWindowEnd"
     FROM "Account" WHERE "id" IN (${placeholderList(values, ids)})`,
    values,
  );
}

/** Bulk candidates need their destination's zone; looked up before planning (cached after the first). */
export async function loadZones(queues: ReadonlyMap<string, QueuedMessage[]>): Promise<Map<string, string | null>> {
  const zones = new Map<string, string | null>();
  for (const to of bulkDestinations(queues)) zones.set(to, await destinationTimeZone(to));
  return zones;
}

/**
 * Moves an account's next slots from what the round read (`account.stored`) to what it planned (`account.pace`), a
 * compare-and-set: false when another worker moved them meanwhile.
 */
export function* claimAccountSlotsSteps(id: string, account: AccountState, now: number): Steps<boolean> {
  const date = (at: number | Date | null) => (at === null ? null : new Date(at));
  const values: unknown[] = [];
  const bind = binder(values);
  const updated = yield* execute(
    `UPDATE "Account" SET "nextSendAt" = ${bind("date", date(account.pace.nextSendAt))},
         "bulkNextSendAt" = ${bind("date", date(account.pace.bulkNextSendAt))}, "updatedAt" = ${bind("date", new Date(now))}
       WHERE "id" = ${bind("text", id)} AND ${sameAs(`"nextSendAt"`, bind("date", account.stored.nextSendAt))}
         AND ${sameAs(`"bulkNextSendAt"`, bind("date", account.stored.bulkNextSendAt))}`,
    values,
  );
  return updated > 0;
}

/** Of `numbers`, those whose lease names this worker and runs past `now`. */
export function* stillLeasedSteps(workerId: string, numbers: string[], now: number): Steps<Set<string>> {
  const stillMine = new Set<string>();
  for (const chunk of chunks(numbers)) {
    const values: unknown[] = [];
    const bind = binder(values);
    const rows = yield* query<{ number: string }>(
      `SELECT "number" FROM "PhoneNumber"
         WHERE "leaseOwner" = ${bind("text", workerId)} AND "leaseUntil" > ${bind("date", new Date(now))}
           AND "number" IN (${placeholderList(values, chunk)})`,
      values,
    );
    for (const row of rows) stillMine.add(row.number);
  }
  return stillMine;
}

/** Null-safe equality of a column and a parameter (SQLite's IS, PostgreSQL's IS NOT DISTINCT FROM). */
function sameAs(column: string, parameter: string): string {
  return dbProvider() === "postgresql" ? `${column} IS NOT DISTINCT FROM ${parameter}` : `${column} IS ${parameter}`;
}

/** Milliseconds since the epoch of a stored time (SQLite gives its text, PostgreSQL a Date), or null. */
export function storedTime(value: Date | string | null): number | null {
  return value === null ? null : new Date(value).getTime();
}
