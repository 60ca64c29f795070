import { join } from "node:path";
import { Worker } from "node:worker_threads";
import { env } from "../env";
import { logger } from "../log";
import { dbProvider } from "./client";
import { sqliteFilePath } from "./sqlite-path";
import { writeLockHeld } from "./write-lock-watch";

// SQLite's body index is filled behind the sends by a thread of its own (lib/db/sqlite-body-indexer-thread.mjs);
// listings read the rows it has not reached yet directly. PostgreSQL's trigram index is kept by PostgreSQL itself.
// The same thread refreshes SQLite's planner statistics (on PostgreSQL the database upkeep does).
export interface BodyIndexer {
  stop(): void;
}

export function startBodyIndexer(): BodyIndexer | null {
  if (dbProvider() !== "sqlite") return null;
  // Resolved from the project root at run time, so that Next's bundler leaves the thread's file alone.
  const script = join(/*turbopackIgnore: true*/ process.cwd(), "lib/db/sqlite-body-indexer-thread.mjs");
  const worker = new Worker(script, { workerData: { file: sqliteFilePath(env().DATABASE_URL) } });
  worker.unref();
  const log = logger();
  let lastError = "";
  worker.on("message", (message: { type: string; message?: string; ms?: number[]; tables?: string[] }) => {
    if (message.type === "held") for (const ms of message.ms ?? []) writeLockHeld("body_indexer", ms);
    if (message.type === "analyzed") log.info({ analyzed: message.tables }, "statistics refreshed");
    if (message.type === "rebuilding") log.warn("body index: rowids were renumbered (VACUUM?); building it again");
    // One line per distinct failure (a busy database is retried on the next round): of the index's round, or of the
    // background checkpoint and statistics the thread also runs (their messages start "checkpoint:", "statistics:").
    if (message.type === "error" && message.message !== lastError) {
      lastError = message.message ?? "";
      log.warn({ err: lastError }, "body index thread: a round failed; retrying");
    }
  });
  worker.on("error", (error) => log.error({ err: error }, "body index thread stopped"));
  return { stop: () => worker.postMessage({ type: "close" }) };
}
