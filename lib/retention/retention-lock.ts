import pg from "pg";
import { dbProvider } from "../db/client";
import { env } from "../env";
import { releaseAdvisoryLock, tryAdvisoryLock } from "./retention-queries";

// One retention pass at a time across the deployment's workers. On PostgreSQL: a session advisory lock, taken
// without waiting on a connection of its own and held for the whole pass; a worker that dies mid-pass loses its
// connection and the lock with it, so nothing is left to expire. On SQLite there is no lock across processes (the
// server's worker and `npm run worker` on one file is the most there is): batches of several workers take turns
// on the one writer, and each deletes only what is still due, so side by side is merely redundant, never wrong.

// The migrations runner holds 7270736900.
const LOCK_KEY = 7_270_736_901;

/** Runs `pass` holding the retention lock; null (and `pass` not run) when another worker holds it. */
export async function withRetentionLock<T>(pass: () => Promise<T>): Promise<T | null> {
  if (dbProvider() !== "postgresql") return pass();
  const client = new pg.Client({ connectionString: env().DATABASE_URL });
  await client.connect();
  try {
    if (!(await tryAdvisoryLock(client, LOCK_KEY))) return null;
    try {
      return await pass();
    } finally {
      await releaseAdvisoryLock(client, LOCK_KEY).catch(() => undefined);
    }
  } finally {
    await client.end().catch(() => undefined);
  }
}
