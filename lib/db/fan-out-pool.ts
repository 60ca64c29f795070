import pg from "pg";
import { env } from "../env";
import { inTransaction } from "./postgres-pool";

/**
 * The connections socket.io's PostgreSQL adapter fans live-view events out over between servers (LISTEN/NOTIFY):
 * a small pool of their own, not postgresPool's, whose request watchdog and statement timeout suit queries, not a
 * connection that sits listening. Also makes the adapter's table for payloads too large for a NOTIFY (the
 * definition in the adapter's README).
 */
export async function fanOutPool(onError: (error: Error) => void): Promise<pg.Pool> {
  const pool = new pg.Pool({ connectionString: env().DATABASE_URL, max: 4 });
  pool.on("error", onError);
  // Under a lock: two servers starting at once would both find the table missing, and the second's CREATE fails on
  // PostgreSQL's catalog (duplicate key in pg_type) even with IF NOT EXISTS.
  await inTransaction(pool, async (client) => {
    await client.query("SELECT pg_advisory_xact_lock(hashtext('socket_io_attachments'))");
    await client.query(`CREATE TABLE IF NOT EXISTS socket_io_attachments (
      id bigserial UNIQUE, created_at timestamptz DEFAULT NOW(), payload bytea)`);
  });
  return pool;
}
