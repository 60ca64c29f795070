import { join } from "node:path";
import { Worker } from "node:worker_threads";
import type { SameTextCount, SameTextRule, TableRows } from "./send-batch";
import { sqliteBound } from "./insert-rows";
import { walSyncFailed } from "./wal-sync";
import { walSynced, writeLockHeld } from "./write-lock-watch";

// SQLite's hot path: the send batches of the group commit, written by a thread of their own with prepared
// statements. Measured on 2 cores: Prisma's createMany costs about 1 ms per message row here (capping sends near
// 300/s), and a durable commit blocks for its disk sync; on the thread, the rows cost microseconds and the main
// thread keeps taking requests during the sync, so the next batch grows instead of waiting. The few small writes
// beside the requests (hotWrite: an API key's last use) go the same way; everything else uses Prisma.
export class SqliteSendWriter {
  private readonly worker: Worker;
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (bulk: number[]) => void; reject: (error: Error) => void }>();
  /** The thread has stopped (closed, or failed): a new writer is needed. */
  stopped = false;

  constructor(file: string) {
    // Resolved from the project root at run time, so that Next's bundler leaves the thread's file alone.
    const script = join(/*turbopackIgnore: true*/ process.cwd(), "lib/db/sqlite-send-writer-thread.mjs");
    this.worker = new Worker(script, { workerData: { file } });
    this.worker.unref();
    this.worker.on(
      "message",
      (reply: {
        id: number;
        ok: boolean;
        bulk?: number[];
        heldMs?: number;
        syncMs?: number;
        fatal?: boolean;
        path?: string;
        code?: string;
        message?: string;
      }) => {
        if (reply.fatal) return walSyncFailed(reply.path ?? "", new Error(reply.message ?? "sync failed"));
        if (reply.heldMs !== undefined) writeLockHeld("send_writer", reply.heldMs);
        if (reply.syncMs !== undefined) walSynced(reply.syncMs / 1000);
        const waiting = this.pending.get(reply.id);
        if (!waiting) return;
        this.pending.delete(reply.id);
        if (reply.ok) waiting.resolve(reply.bulk ?? []);
        else waiting.reject(Object.assign(new Error(reply.message ?? "SQLite write failed"), { code: reply.code }));
      },
    );
    this.worker.on("error", (error) => this.failPending(error));
    // A thread that stopped takes no more batches (a message posted to it is dropped): its writes fail, and the
    // next write gets a new writer (write-batch-sqlite.ts).
    this.worker.on("exit", () => {
      this.stopped = true;
      this.failPending(stoppedError());
    });
  }

  private failPending(error: Error): void {
    for (const waiting of this.pending.values()) waiting.reject(error);
    this.pending.clear();
  }

  /**
   * All rows in one durable transaction; rejects (and writes nothing) if any row fails. In the same transaction,
   * first, each of `counts` adds its destinations to its text's second and sums its window (kept in memory by the
   * thread, from the log every send writer of the file appends to); the writes over the threshold get their
   * patches. Resolves with the indices (in `counts`) of those. `pruneBefore`: delete the counts of seconds before
   * this one.
   */
  write(
    tables: TableRows[],
    rule: SameTextRule,
    counts: SameTextCount[] = [],
    pruneBefore: number | null = null,
  ): Promise<number[]> {
    if (this.stopped) return Promise.reject(stoppedError());
    // One prepared single-row statement per table (the thread keeps them), values already in SQLite's stored forms.
    const steps = tables.map(({ table, columns, rows, suffix }) => ({
      sql: `INSERT INTO "${table}" (${columns.map(([name]) => `"${name}"`).join(", ")}) VALUES (${columns
        .map(() => "?")
        .join(", ")})${suffix ? ` ${suffix}` : ""}`,
      rows: rows.map((row) => row.map((value, i) => sqliteBound(columns[i]![1], value))),
    }));
    const sameText = counts.map((c) => ({
      accountId: c.accountId,
      textHash: c.textHash,
      second: rule.bucketOf(c.at),
      since: rule.windowStart(c.at),
      destinations: c.destinations,
      patches: c.patches.map(([t, r, col, value]) => [t, r, col, sqliteBound(tables[t]!.columns[col]![1], value)]),
    }));
    return this.post({ steps, sameText, pruneBefore, threshold: rule.threshold });
  }

  /**
   * One statement that writes a few rows, in a durable transaction of its own on this thread (with its write-lock
   * wait and disk sync), so that a small write beside the requests never blocks the event loop.
   */
  async run(sql: string, params: unknown[]): Promise<void> {
    if (this.stopped) throw stoppedError();
    await this.post({ steps: [{ sql, rows: [params] }], threshold: 0 });
  }

  /** One transaction's message to the thread; resolves with its reply's `bulk` (the thread is referenced meanwhile). */
  private post(message: object): Promise<number[]> {
    const id = this.nextId++;
    return new Promise<number[]>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.ref();
      this.worker.postMessage({ id, ...message });
    }).finally(() => {
      if (this.pending.size === 0) this.worker.unref();
    });
  }

  close(): void {
    this.worker.postMessage({ type: "close" });
  }
}

function stoppedError(): Error {
  return new Error("the SQLite send writer's thread stopped");
}
