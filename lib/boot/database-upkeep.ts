import { refreshStatistics, warmListingReaders } from "../db/statistics-queries";
import { foldTallyDeltas } from "../messaging/message-tally-queries";
import { logger } from "../log";
import { dbProvider } from "../db/client";
import { warmKeyLookup } from "../api/authenticate";
import { warmSendWriter } from "../db/write-batch-sqlite";

// What the database needs beside the requests, in every server process: the listing's readers, the API key lookup
// and (SQLite) the send writer's thread prepared at start-up; on PostgreSQL, the planner's statistics refreshed at
// start-up and after bulk loads (checked every minute; on SQLite the body index's thread does it, off the event loop)
// and the message tally's appended changes folded every two seconds (one process at a time; the others find the lock
// taken and skip).

const STATISTICS_EVERY_MS = 60_000;
const FOLD_EVERY_MS = 2_000;

export interface DatabaseUpkeep {
  stop(): void;
}

export function startDatabaseUpkeep(): DatabaseUpkeep {
  const log = logger().child({ component: "database-upkeep" });
  let lastError = "";
  const attempt = (what: string, run: () => Promise<unknown>) => async () => {
    try {
      await run();
    } catch (error) {
      // One line per distinct failure: a busy database is simply tried again next time.
      const message = (error as Error).message;
      if (message !== lastError) log.warn({ err: message }, `${what} failed; trying again later`);
      lastError = message;
    }
  };
  const statistics = attempt("refreshing the statistics", async () => {
    const analyzed = await refreshStatistics();
    if (analyzed.length > 0) log.info({ analyzed }, "statistics refreshed");
  });
  const fold = attempt("folding the message tally", foldTallyDeltas);
  void attempt("opening the listing readers", warmListingReaders)();
  void attempt("preparing the API key lookup", warmKeyLookup)();
  if (dbProvider() === "sqlite") void attempt("starting the send writer", async () => warmSendWriter())();
  const timers: NodeJS.Timeout[] = [];
  if (dbProvider() === "postgresql") {
    void statistics();
    timers.push(setInterval(statistics, STATISTICS_EVERY_MS), setInterval(fold, FOLD_EVERY_MS));
  }
  for (const timer of timers) timer.unref();
  return { stop: () => timers.forEach(clearInterval) };
}
