import { db } from "../db/client";

// Retention deletes in small transactions with a pause after each, so that sends, receipts and webhook outcomes
// written meanwhile wait at most one batch: SQLite has one writer, and on the process's one SQLite connection the
// statements run on the event loop itself. Every batch is an idempotent "delete what is still due", so a batch
// repeated after a crash, or run beside another worker's, does no harm.

export type Tx = Parameters<Parameters<ReturnType<typeof db>["$transaction"]>[0]>[0];

/** Messages (or events, records) one batch deletes at most. */
export const DEFAULT_BATCH_SIZE = 500;
/**
 * The least pause between two batches; after a longer batch the pause is twice as long as the batch was, so that
 * one worker's pruning holds the write lock at most a third of the time.
 */
const MIN_PAUSE_MS = 50;

export interface PruneControl {
  batchSize?: number;
  /** Asked before each batch: true ends the run early (the worker is stopping). */
  stopping?: () => boolean;
  /** Told each batch's duration, from its first statement to its commit: how long it held the write lock. */
  onBatch?: (ms: number) => void;
}

export interface BatchOutcome {
  /** Rows of the batch's own kind deleted (messages, events, records). */
  deleted: number;
  /** False when nothing more is due. */
  more: boolean;
}

export interface PruneRun {
  deleted: number;
  batches: number;
}

/** Runs `batch` in one transaction at a time until it reports that nothing more is due. */
export async function pruneInBatches(
  batch: (tx: Tx) => Promise<BatchOutcome>,
  control: PruneControl = {},
): Promise<PruneRun> {
  const run: PruneRun = { deleted: 0, batches: 0 };
  for (;;) {
    if (control.stopping?.()) return run;
    let started = 0;
    const outcome = await db().$transaction(async (tx) => {
      started = performance.now();
      return batch(tx);
    });
    const ms = performance.now() - started;
    run.batches++;
    run.deleted += outcome.deleted;
    control.onBatch?.(ms);
    if (!outcome.more) return run;
    await new Promise((resolve) => setTimeout(resolve, Math.max(MIN_PAUSE_MS, 2 * ms)));
  }
}
