import pg from "pg";
import { env } from "../env";

/**
 * The connections socket.io's PostgreSQL adapter fans live-view events out over between servers (LISTEN/NOTIFY):
 * a small pool of their own, not postgresPool's, whose request watchdog and statement timeout suit queries, not a
 * connection that sits listening. Also makes the adapter's table for payloads too large for a NOTIFY (the
 * definition in the adapter's README).
 */
export async function fanOutPool(onError: (error: Error) => void): Promise<pg.Pool> {
  const pool = new pg.Pool({ connectionString: env().DATABASE_URL, max: 4 });
  pool.on("error", onError);
  await pool.query(`CREATE TABLE IF NOT EXISTS socket_io_attachments (
    id bigserial UNIQUE, created_at timestamptz DEFAULT NOW(), payload bytea)`);
  return pool;
}
