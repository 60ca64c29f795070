import { dbProvider } from "./client";
import { logger } from "../log";
import type { SameTextRule, SendWrite, SendWriteResult } from "./send-batch";
import { writeBatchPg } from "./write-batch-pg";
import { writeBatchSqlite } from "./write-batch-sqlite";

export type { OptFooterWrite, SendWrite, SendWriteResult } from "./send-batch";

// Group commit: concurrent sends are written in one transaction, so the disk sync that makes a commit durable is
// paid once per batch instead of once per request. Each caller's promise settles only after its rows are
// committed (the promise: accepted messages are persisted before the answer). This module batches and paces; the
// rows are built by send-rows.ts and written by write-batch-sqlite.ts or write-batch-pg.ts.

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

// Rows older than the window are deleted at most this often per process, in a batch's commit.
const PRUNE_EVERY_MS = 10_000;
let lastPrune = 0;

function pruneDue(now: number, rule: SameTextRule): number | null {
  if (now - lastPrune < PRUNE_EVERY_MS) return null;
  lastPrune = now;
  return rule.pruneBefore(now);
}

/** Commits the writes; returns, in write order, whether each became bulk by its text's count. */
async function writeBatch(writes: SendWrite[]): Promise<boolean[]> {
  const { sameText: rule } = configured();
  const prune = pruneDue(Date.now(), rule);
  return dbProvider() === "sqlite" ? writeBatchSqlite(writes, rule, prune) : writeBatchPg(writes, rule, prune);
}

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
