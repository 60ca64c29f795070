// Who copies SQLite's write-ahead log back into the database file. By default the connection whose commit takes the
// log past 1,000 pages does it right after that commit (a passive checkpoint): most often the send writer's thread,
// whose next batch of sends waits meanwhile, or the delivery worker's event loop. Here the body indexer's thread, in
// the background, checkpoints every CHECKPOINT_EVERY_MS instead (lib/db/sqlite-body-indexer-thread.mjs); the writing
// connections checkpoint themselves only past WAL_BACKSTOP_PAGES (40 MB), should no server be running one (a
// worker or the CLI alone). Under load the send writer spent 100 µs a send in its transactions against 137-143 with
// the default (bench:profile, two runs each, alternating; docs/PERFORMANCE.md).
// Plain JavaScript: the writer's and the indexer's threads import it too.

/** The log's length, in pages, past which a writing connection checkpoints after its own commit. */
export const WAL_BACKSTOP_PAGES = 10_000;

/** How often the background checkpoint runs. */
export const CHECKPOINT_EVERY_MS = 200;
