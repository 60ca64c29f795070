import { join } from "node:path";
import { Worker } from "node:worker_threads";
import type { TableRows } from "./group-commit";
import { sqliteBound } from "./insert-rows";

// SQLite's hot path: the send batches of the group commit, written by a thread of their own with prepared
// statements. Measured on 2 cores: Prisma's createMany costs about 1 ms per message row here (capping sends near
// 300/s), and a durable commit blocks for its disk sync; on the thread, the rows cost microseconds and the main
// thread keeps taking requests during the sync, so the next batch grows instead of waiting. Everything else
// uses Prisma.
export class SqliteSendWriter {
  private readonly worker: Worker;
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: () => void; reject: (error: Error) => void }>();

  constructor(file: string) {
    // Resolved from the project root at run time, so that Next's bundler leaves the thread's file alone.
    const script = join(/*turbopackIgnore: true*/ process.cwd(), "lib/db/sqlite-send-writer-thread.mjs");
    this.worker = new Worker(script, { workerData: { file } });
    this.worker.unref();
    this.worker.on("message", (reply: { id: number; ok: boolean; code?: string; message?: string }) => {
      const waiting = this.pending.get(reply.id);
      if (!waiting) return;
      this.pending.delete(reply.id);
      if (reply.ok) waiting.resolve();
      else waiting.reject(Object.assign(new Error(reply.message ?? "SQLite write failed"), { code: reply.code }));
    });
    this.worker.on("error", (error) => {
      for (const waiting of this.pending.values()) waiting.reject(error);
      this.pending.clear();
    });
  }

  /** All rows in one durable transaction; rejects (and writes nothing) if any row fails. */
  write(tables: TableRows[]): Promise<void> {
    const id = this.nextId++;
    // One prepared single-row statement per table (the thread keeps them), values already in SQLite's stored forms.
    const steps = tables.map(({ table, columns, rows, suffix }) => ({
      sql: `INSERT INTO "${table}" (${columns.map(([name]) => `"${name}"`).join(", ")}) VALUES (${columns
        .map(() => "?")
        .join(", ")})${suffix ? ` ${suffix}` : ""}`,
      rows: rows.map((row) => row.map((value, i) => sqliteBound(columns[i]![1], value))),
    }));
    return new Promise<void>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.ref();
      this.worker.postMessage({ id, steps });
    }).finally(() => {
      if (this.pending.size === 0) this.worker.unref();
    });
  }

  close(): void {
    this.worker.postMessage({ type: "close" });
  }
}
