import { db, dbProvider } from "./client";
import { env } from "../env";
import { sqliteFilePath } from "./sqlite-path";
import { SqliteSendWriter } from "./sqlite-send-writer";
import type { Prisma } from "./generated/sqlite/client";
import { logger } from "../log";
import { announceChanges } from "../realtime/announce-changes";
import { insertRows, SDR_COLUMNS, sdrValues, type ColumnKind } from "./insert-rows";

// Group commit: concurrent sends are written in one transaction, so the disk sync that makes a commit durable is
// paid once per batch instead of once per request. Each caller's promise settles only after its rows are
// committed (the promise: accepted messages are persisted before the answer).
export interface SendWrite {
  messages: Prisma.MessageCreateManyInput[];
  sdrs: Prisma.SdrCreateManyInput[];
  idempotency?: Prisma.IdempotencyRecordCreateManyInput;
  /** Destinations whose message carries the opt-out footer: when it went, in the same commit as the message. */
  optStates?: OptFooterWrite[];
}

export interface OptFooterWrite {
  accountId: string;
  number: string;
  lastFooterAt: Date;
}

interface Pending {
  write: SendWrite;
  resolve: () => void;
  reject: (error: unknown) => void;
}

// Bounds one transaction: a 1,000-destination send is about 3,000 rows; more than this waits for the next batch.
const MAX_ROWS_PER_BATCH = 20_000;

let queue: Pending[] = [];

function rowsOf(write: SendWrite): number {
  return write.messages.length + write.sdrs.length + (write.idempotency ? 1 : 0) + (write.optStates?.length ?? 0);
}

// One writer per process, on globalThis like the Prisma client, and for the database the environment names.
const holder = globalThis as unknown as { __parleySendWriter?: { url: string; writer: SqliteSendWriter } };

function sqliteWriter(): SqliteSendWriter {
  const url = env().DATABASE_URL;
  if (holder.__parleySendWriter?.url !== url) {
    holder.__parleySendWriter?.writer.close();
    holder.__parleySendWriter = { url, writer: new SqliteSendWriter(sqliteFilePath(url)) };
  }
  return holder.__parleySendWriter.writer;
}

/** The rows of one table in a batch, in `columns` order; `suffix` follows the VALUES (an upsert's ON CONFLICT). */
export interface TableRows {
  table: string;
  columns: [name: string, kind: ColumnKind][];
  rows: unknown[][];
  suffix?: string;
}

/** A batch's rows, table by table: the one description both databases' writers use. */
function batchRows(writes: SendWrite[]): TableRows[] {
  // One statement may not change a row twice on PostgreSQL: two sends of a batch may foot the same destination.
  const footers = [
    ...new Map(writes.flatMap((w) => w.optStates ?? []).map((f) => [`${f.accountId} ${f.number}`, f])).values(),
  ];
  return [
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
  ].filter((t) => t.rows.length > 0);
}

async function writeBatch(writes: SendWrite[]): Promise<void> {
  const tables = batchRows(writes);
  if (dbProvider() === "sqlite") {
    await sqliteWriter().write(tables);
    return;
  }
  // PostgreSQL: multi-row INSERTs in one transaction (Prisma's createMany cost about a millisecond a row here).
  await db().$transaction(async (tx) => {
    for (const t of tables) await insertRows(tx, t.table, t.columns, t.rows, t.suffix);
  });
}

function messageValues(m: Prisma.MessageCreateManyInput): unknown[] {
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

const MESSAGE_COLUMNS: [string, ColumnKind][] = [
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

const KEY_COLUMNS: [string, ColumnKind][] = [
  ["id", "text"],
  ["accountId", "text"],
  ["key", "text"],
  ["requestHash", "text"],
  ["statusCode", "int"],
  ["responseBody", "text"],
  ["createdAt", "date"],
];

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
    await writeBatch(batch.map((p) => p.write));
    announceChanges();
    for (const p of batch) p.resolve();
  } catch (error) {
    if (batch.length === 1) {
      batch[0]!.reject(error);
      return;
    }
    // One write spoiled the batch (a repeated Idempotency-Key, say): commit each alone so only it fails.
    logger().debug({ err: error, size: batch.length }, "group commit failed; committing one by one");
    for (const p of batch) {
      try {
        await writeBatch([p.write]);
        p.resolve();
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

export function commitSendWrite(write: SendWrite): Promise<void> {
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
