import pg from "pg";
import { env } from "../env";
import { watchedSocket } from "./watch-connection";

/**
 * The PostgreSQL connection pool. A request without any answer within DATABASE_TIMEOUT_SECONDS closes its
 * connection (see watchedSocket), and so does a connection attempt; each session asks the server to end it when it
 * sits idle inside a transaction that long, so that a client whose connection was silently dropped does not keep
 * its row locks, on which every other worker would wait (a SET rather than a startup option, which poolers such as
 * PgBouncer refuse). TCP keepalive finds peers that are gone altogether.
 */
export function postgresPool(
  url: string,
  options: { max?: number; statementTimeoutMs?: number; allowExitOnIdle?: boolean } = {},
): pg.Pool {
  const timeoutMs = env().DATABASE_TIMEOUT_SECONDS * 1000;
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max ?? 20,
    // Every statement bounded: a query that runs away is cancelled by PostgreSQL, not waited for.
    statement_timeout: options.statementTimeoutMs ?? env().STATEMENT_TIMEOUT_SECONDS * 1000,
    allowExitOnIdle: options.allowExitOnIdle,
    stream: watchedSocket(timeoutMs),
    connectionTimeoutMillis: timeoutMs,
    keepAlive: true,
    // Awaited before the new connection is handed out.
    onConnect: async (client) => {
      await client.query(`SET idle_in_transaction_session_timeout = ${Math.round(timeoutMs)}`);
    },
  });
  // An idle connection that fails (the server restarted, a peer gone silent) is dropped by the pool, which then
  // emits this; unheard, it would end the process.
  pool.on("error", () => {});
  return pool;
}

/** Runs `work` in a transaction on one connection of `pool`: committed when it resolves, rolled back when it throws. */
export async function inTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    const result = await work(client);
    await client.query("COMMIT");
    return result;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}
