import { dbProvider } from "./client";
import { env } from "../env";
import { sqliteFilePath } from "./sqlite-path";
import { SqliteSendWriter } from "./sqlite-send-writer";
import type { Prisma } from "./generated/sqlite/client";
import { logger } from "../log";
import { SDR_COLUMNS, sdrValues, type ColumnKind } from "./insert-rows";
import { hotPool, insertTablesPg } from "./pg-hot-path";
import type { SameTextCount, SameTextEntry, SameTextRule, TableRows } from "./send-batch";
import { processSingleton } from "../process-singletons";

// Group commit: concurrent sends are written in one transaction, so the disk sync that makes a commit durable is
// paid once per batch instead of once per request. Each caller's promise settles only after its rows are
// committed (the promise: accepted messages are persisted before the answer).
export interface SendWrite {
  messages: Prisma.MessageCreateManyInput[];
  sdrs: Prisma.SdrCreateManyInput[];
  idempotency?: Prisma.IdempotencyRecordCreateManyInput;
  /** Destinations whose message carries the opt-out footer: when it went, in the same commit as the message. */
  optStates?: OptFooterWrite[];
  /**
   * Automatic bulk: the send's destinations are counted for its account and text in this batch's commit, and if the
   * window then holds more than 20, its messages are committed as bulk (and `bulkResponseBody` replaces the
   * idempotency record's answer). Counting in the commit costs no round trip of its own.
   */
  sameText?: SameTextEntry & { bulkResponseBody?: string };
}

/** What the commit decided for one write. */
export interface SendWriteResult {
  autoBulk: boolean;
}

export interface OptFooterWrite {
  accountId: string;
  number: string;
  lastFooterAt: Date;
}

interface Pending {
  write: SendWrite;
  resolve: (result: SendWriteResult) => void;
  reject: (error: unknown) => void;
}

// Bounds one transaction: a 1,000-destination send is about 3,000 rows; more than this waits for the next batch.
const MAX_ROWS_PER_BATCH = 20_000;

let queue: Pending[] = [];

/**
 * What the commit needs from above: the automatic-bulk rule it counts by and what follows each committed batch (the
 * live view's wake-up). lib/db decides nothing about messages and announces nothing itself; the sender
 * (lib/messaging/send-message.ts) hands both over when it is loaded, before its first write.
 */
export interface SendCommitHooks {
  sameText: SameTextRule;
  afterBatch: () => void;
}

let hooks: SendCommitHooks | null = null;

export function configureSendCommits(given: SendCommitHooks): void {
  hooks = given;
}

function configured(): SendCommitHooks {
  if (!hooks) throw new Error("configureSendCommits() must be called before the first send write");
  return hooks;
}

function rowsOf(write: SendWrite): number {
  return write.messages.length + write.sdrs.length + (write.idempotency ? 1 : 0) + (write.optStates?.length ?? 0);
}

// One writer per process, like the Prisma client, and for the database the environment names.
const holder = processSingleton(
  "sendWriter",
  (): { __parleySendWriter?: { url: string; writer: SqliteSendWriter } } => ({}),
);

function sqliteWriter(): SqliteSendWriter {
  const url = env().DATABASE_URL;
  if (holder.__parleySendWriter?.url !== url) {
    holder.__parleySendWriter?.writer.close();
    holder.__parleySendWriter = { url, writer: new SqliteSendWriter(sqliteFilePath(url)) };
  }
  return holder.__parleySendWriter.writer;
}

/** A batch's rows, table by table: the one description both databases' writers use. */
function batchRows(writes: SendWrite[], rule: SameTextRule): { tables: TableRows[]; counts: SameTextCount[] } {
  // One statement may not change a row twice on PostgreSQL: two sends of a batch may foot the same destination.
  const footers = [
    ...new Map(writes.flatMap((w) => w.optStates ?? []).map((f) => [`${f.accountId} ${f.number}`, f])).values(),
  ];
  const tables = [
    { table: "Message", columns: MESSAGE_COLUMNS, rows: writes.flatMap((w) => w.messages.map(messageValues)) },
    {
      table: "Sdr",
      columns: SDR_COLUMNS,
      rows: writes.flatMap((w) => w.sdrs.map((s) => sdrValues({ ...s, createdAt: new Date(s.createdAt) }))),
    },
    {
      table: "IdempotencyRecord",
      columns: KEY_COLUMNS,
      rows: writes.flatMap((w) => (w.idempotency ? [keyValues(w.idempotency)] : [])),
    },
    {
      // A row made only for the footer keeps status "" (no opt record).
      table: "OptState",
      columns: FOOTER_COLUMNS,
      rows: footers.map((f) => [f.accountId, f.number, "", f.lastFooterAt]),
      suffix: `ON CONFLICT ("accountId", "number") DO UPDATE SET "lastFooterAt" = excluded."lastFooterAt"`,
    },
  ];
  const counts: SameTextCount[] = [];
  // Where each write's rows are: the first three tables take one row per message, SDR or record, in write order.
  let message = 0;
  let sdr = 0;
  let key = 0;
  for (const [index, w] of writes.entries()) {
    if (w.sameText) {
      const { bulkResponseBody, ...entry } = w.sameText;
      const patches: SameTextCount["patches"] = [];
      for (let i = 0; i < w.messages.length; i++) patches.push([0, message + i, BULK_COLUMN, true]);
      for (const [i, s] of w.sdrs.entries()) {
        if (s.status === "queued") patches.push([1, sdr + i, DETAILS_COLUMN, rule.detail]);
      }
      if (w.idempotency && bulkResponseBody !== undefined) patches.push([2, key, RESPONSE_COLUMN, bulkResponseBody]);
      counts.push({ ...entry, write: index, patches });
    }
    message += w.messages.length;
    sdr += w.sdrs.length;
    key += w.idempotency ? 1 : 0;
  }
  // Tables without rows are left out; patches follow their table to its new index.
  const kept = tables.map((t) => t.rows.length > 0);
  const newIndex = kept.map((_, i) => kept.slice(0, i).filter(Boolean).length);
  for (const c of counts) c.patches = c.patches.map(([t, r, col, v]) => [newIndex[t]!, r, col, v]);
  return { tables: tables.filter((t) => t.rows.length > 0), counts };
}

// Rows older than the window are deleted at most this often per process, in a batch's commit.
const PRUNE_EVERY_MS = 10_000;
let lastPrune = 0;

function pruneDue(now: number, rule: SameTextRule): number | null {
  if (now - lastPrune < PRUNE_EVERY_MS) return null;
  lastPrune = now;
  return rule.pruneBefore(now);
}

/**
 * PostgreSQL: one statement adds the batch's destinations (a row per account, text and second, in key order so
 * that concurrent batches lock rows in one order) and reads each key's other buckets of the window. It commits on
 * its own, before the batch's transaction, so a hot text's row is locked for one statement, not a whole batch.
 */
async function countSameTextPg(counts: SameTextEntry[], rule: SameTextRule): Promise<number[]> {
  const increments = new Map<string, [string, string, number, number]>();
  const keys = new Map<string, { accountId: string; textHash: string; since: number; lo: number; hi: number }>();
  for (const c of counts) {
    const bucket = rule.bucketOf(c.at);
    const id = `${c.accountId} ${c.textHash} ${bucket}`;
    const row = increments.get(id) ?? [c.accountId, c.textHash, bucket, 0];
    row[3] += c.destinations;
    increments.set(id, row);
    const k = `${c.accountId} ${c.textHash}`;
    const known = keys.get(k);
    keys.set(k, {
      accountId: c.accountId,
      textHash: c.textHash,
      // The latest send's window: traffic older than 10 minutes never counts.
      since: Math.max(known?.since ?? 0, rule.windowStart(c.at)),
      lo: Math.min(known?.lo ?? bucket, bucket),
      hi: Math.max(known?.hi ?? bucket, bucket),
    });
  }
  const rows = [...increments.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, r]) => r);
  const ks = [...keys.values()];
  const { rows: result } = await hotPool().query<{
    kind: number;
    a: string;
    h: string;
    s: string | number;
    c: string | number;
  }>(
    `WITH up AS (
       INSERT INTO "SameTextCount" ("accountId", "textHash", "second", "count")
       SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[], $4::integer[])
       ON CONFLICT ("accountId", "textHash", "second") DO UPDATE SET "count" = "SameTextCount"."count" + excluded."count"
       RETURNING "accountId", "textHash", "second", "count"
     ), k AS (
       SELECT * FROM unnest($5::text[], $6::text[], $7::bigint[], $8::bigint[], $9::bigint[]) AS k(a, h, since, lo, hi)
     )
     SELECT 0 AS kind, "accountId" AS a, "textHash" AS h, "second" AS s, "count"::bigint AS c FROM up
     UNION ALL
     SELECT 1, k.a, k.h, 0, (SELECT COALESCE(SUM(x.c), 0)::bigint FROM (
       SELECT t."count" AS c FROM "SameTextCount" t
       WHERE t."accountId" = k.a AND t."textHash" = k.h AND t."second" >= k.since AND t."second" NOT BETWEEN k.lo AND k.hi
       ORDER BY t."second" DESC LIMIT ${rule.windowRows}) x)
     FROM k`,
    [
      rows.map((r) => r[0]),
      rows.map((r) => r[1]),
      rows.map((r) => String(r[2])),
      rows.map((r) => r[3]),
      ks.map((k) => k.accountId),
      ks.map((k) => k.textHash),
      ks.map((k) => String(k.since)),
      ks.map((k) => String(k.lo)),
      ks.map((k) => String(k.hi)),
    ],
  );
  const after = new Map<string, number>();
  const others = new Map<string, number>();
  for (const r of result) {
    if (Number(r.kind) === 0) after.set(`${r.a} ${r.h} ${Number(r.s)}`, Number(r.c));
    else others.set(`${r.a} ${r.h}`, Number(r.c));
  }
  return rule.batchTotals(counts, after, others);
}

// PostgreSQL counts before the batch's transaction: what a write's count decided is kept here (and applied to the
// write), so a write committed again alone after its batch failed is not counted twice.
const counted = new WeakMap<SendWrite, boolean>();

function markBulk(write: SendWrite, rule: SameTextRule): void {
  for (const m of write.messages) m.bulk = true;
  for (const s of write.sdrs) if (s.status === "queued") s.statusDetails = rule.detail;
  if (write.idempotency && write.sameText?.bulkResponseBody !== undefined) {
    write.idempotency.responseBody = write.sameText.bulkResponseBody;
  }
}

/** Commits the writes; returns, in write order, whether each became bulk by its text's count. */
async function writeBatch(writes: SendWrite[]): Promise<boolean[]> {
  const { sameText: rule } = configured();
  const now = Date.now();
  const prune = pruneDue(now, rule);
  if (dbProvider() === "sqlite") {
    // The writer thread counts in the batch's own transaction and applies the patches of the writes it makes bulk.
    const { tables, counts } = batchRows(writes, rule);
    const bulk = writes.map(() => false);
    for (const i of await sqliteWriter().write(tables, rule, counts, prune)) bulk[counts[i]!.write] = true;
    return bulk;
  }
  if (prune !== null) {
    await hotPool().query(`DELETE FROM "SameTextCount" WHERE "second" < $1::bigint`, [String(prune)]);
  }
  const uncounted = writes.filter((w) => w.sameText && !counted.has(w));
  if (uncounted.length > 0) {
    const totals = await countSameTextPg(
      uncounted.map((w) => w.sameText!),
      rule,
    );
    for (const [i, w] of uncounted.entries()) {
      const bulk = rule.overThreshold(totals[i]!);
      counted.set(w, bulk);
      if (bulk) markBulk(w, rule);
    }
  }
  const { tables } = batchRows(
    writes.map((w) => ({ ...w, sameText: undefined })),
    rule,
  );
  // PostgreSQL: every table's rows in one statement on the hot path's own pool (through Prisma, an interactive
  // transaction of multi-row INSERTs cost several round trips and most of the main thread per send).
  await insertTablesPg(tables);
  return writes.map((w) => counted.get(w) ?? false);
}

/** A message's values in MESSAGE_COLUMNS order (also what tests and benchmarks use to store messages in bulk). */
export function messageValues(m: Prisma.MessageCreateManyInput): unknown[] {
  return [
    m.id,
    m.accountId,
    m.direction,
    m.messageType,
    m.fromNumber,
    m.toNumber,
    m.body,
    m.media ?? "[]",
    m.numSegments,
    m.encoding,
    m.status,
    m.rejectReason ?? null,
    m.conversational ?? false,
    m.bulk ?? false,
    m.optLogic ?? false,
    m.optStatus ?? "",
    m.referenceId ?? null,
    m.userId ?? null,
    m.userType ?? null,
    m.conversationId ?? null,
    new Date(m.createdAt),
    new Date(m.updatedAt ?? m.createdAt),
  ];
}

function keyValues(k: Prisma.IdempotencyRecordCreateManyInput): unknown[] {
  return [k.id, k.accountId, k.key, k.requestHash, k.statusCode, k.responseBody, new Date(k.createdAt ?? Date.now())];
}

export const MESSAGE_COLUMNS: [string, ColumnKind][] = [
  ["id", "text"],
  ["accountId", "text"],
  ["direction", "text"],
  ["messageType", "text"],
  ["fromNumber", "text"],
  ["toNumber", "text"],
  ["body", "text"],
  ["media", "text"],
  ["numSegments", "int"],
  ["encoding", "text"],
  ["status", "text"],
  ["rejectReason", "text"],
  ["conversational", "bool"],
  ["bulk", "bool"],
  ["optLogic", "bool"],
  ["optStatus", "text"],
  ["referenceId", "text"],
  ["userId", "text"],
  ["userType", "text"],
  ["conversationId", "text"],
  ["createdAt", "date"],
  ["updatedAt", "date"],
];

const BULK_COLUMN = MESSAGE_COLUMNS.findIndex(([name]) => name === "bulk");
const DETAILS_COLUMN = SDR_COLUMNS.findIndex(([name]) => name === "statusDetails");

const KEY_COLUMNS: [string, ColumnKind][] = [
  ["id", "text"],
  ["accountId", "text"],
  ["key", "text"],
  ["requestHash", "text"],
  ["statusCode", "int"],
  ["responseBody", "text"],
  ["createdAt", "date"],
];
const RESPONSE_COLUMN = KEY_COLUMNS.findIndex(([name]) => name === "responseBody");

const FOOTER_COLUMNS: [string, ColumnKind][] = [
  ["accountId", "text"],
  ["number", "text"],
  ["status", "text"],
  ["lastFooterAt", "date"],
];

let inFlight = 0;
let pumpScheduled = false;

// SQLite has one writer (its thread commits batch after batch); PostgreSQL commits several batches at once, so a
// batch's round trips (BEGIN, the inserts, COMMIT) overlap with the next one's instead of queueing behind them.
function lanes(): number {
  return dbProvider() === "postgresql" ? 4 : 1;
}

function takeBatch(): Pending[] {
  let rows = 0;
  let take = 0;
  while (take < queue.length && (take === 0 || rows + rowsOf(queue[take]!.write) <= MAX_ROWS_PER_BATCH)) {
    rows += rowsOf(queue[take]!.write);
    take += 1;
  }
  const batch = queue.slice(0, take);
  queue = queue.slice(take);
  return batch;
}

async function commitBatch(batch: Pending[]): Promise<void> {
  try {
    const bulk = await writeBatch(batch.map((p) => p.write));
    configured().afterBatch();
    for (const [i, p] of batch.entries()) p.resolve({ autoBulk: bulk[i]! });
  } catch (error) {
    if (batch.length === 1) {
      batch[0]!.reject(error);
      return;
    }
    // One write spoiled the batch (a repeated Idempotency-Key, say): commit each alone so only it fails.
    logger().debug({ err: error, size: batch.length }, "group commit failed; committing one by one");
    for (const p of batch) {
      try {
        const [bulk] = await writeBatch([p.write]);
        p.resolve({ autoBulk: bulk! });
      } catch (single) {
        p.reject(single);
      }
    }
  }
}

function pump(): void {
  while (inFlight < lanes() && queue.length > 0) {
    const batch = takeBatch();
    inFlight += 1;
    void commitBatch(batch).finally(() => {
      inFlight -= 1;
      pump();
    });
  }
}

export function commitSendWrite(write: SendWrite): Promise<SendWriteResult> {
  return new Promise((resolve, reject) => {
    queue.push({ write, resolve, reject });
    // Writes arriving while the lanes are busy form the next batch; when one is free, the flush starts on the next
    // turn of the event loop so that requests parsed in this turn join it.
    if (!pumpScheduled && inFlight < lanes()) {
      pumpScheduled = true;
      setImmediate(() => {
        pumpScheduled = false;
        pump();
      });
    }
  });
}
