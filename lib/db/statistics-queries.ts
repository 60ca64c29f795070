import { db, dbProvider } from "./client";
import { readListing } from "./listing-reader";

// PostgreSQL's planner statistics, refreshed by the server (lib/boot/database-upkeep.ts) at start-up and after bulk
// loads, so that the first queries after an import plan as well as later ones. SQLite's are refreshed by the body
// index's thread (lib/db/sqlite-body-indexer-thread.mjs), off the event loop.

/**
 * ANALYZE of the tables whose rows changed more than autovacuum's default share (10 %) since their statistics were
 * taken, or never analyzed, which is what autovacuum would do on a cluster where it runs late or not at all. Returns
 * the tables analyzed.
 */
export async function refreshStatistics(): Promise<string[]> {
  if (dbProvider() !== "postgresql") return [];
  const stale = await db().$queryRawUnsafe<{ name: string }[]>(
    `SELECT relname AS name FROM pg_stat_user_tables
     WHERE schemaname = current_schema() AND n_live_tup + n_mod_since_analyze > 1000
       AND (coalesce(last_analyze, last_autoanalyze) IS NULL OR n_mod_since_analyze > 0.1 * n_live_tup)`,
  );
  for (const { name } of stale) await db().$executeRawUnsafe(`ANALYZE "${name.replace(/"/g, '""')}"`);
  return stale.map((row) => row.name);
}

/** Opens the listing's readers (threads and connections, with the schema and statistics read) before a first request needs them. */
export async function warmListingReaders(): Promise<void> {
  await readListing('SELECT count(*) AS n FROM "MessageTally"', []);
}
