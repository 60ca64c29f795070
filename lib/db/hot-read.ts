import type BetterSqlite3 from "better-sqlite3";
import { databaseProvider, env, type DatabaseProvider } from "../env";
import { committedSqlite, openCommittedSqlite } from "./client";
import { hotPool } from "./pg-hot-path";
import { runOnSendWriter } from "./write-batch-sqlite";

// The hot reads (an uncached API key, a send's `from` number and destinations' opt states, the change feed's
// position): a Prisma query costs about a millisecond of the main thread here, which cut single-destination sends by a
// third (bench:send). On SQLite they run as kept prepared statements on the committed-data connection under readDb()
// (microseconds; WAL lets it read while the send writer's thread commits); on PostgreSQL as named prepared statements
// on the hot-path pool.

/** One statement in the dialect it was asked for: `?` placeholders on SQLite, `$n` on PostgreSQL. */
export interface HotQuery {
  /** The prepared statement's name on PostgreSQL. */
  name: string;
  text: string;
  values: unknown[];
}

// The few hot statements, prepared once per connection: a plain lookup (the send path runs one per request).
const statements = new WeakMap<BetterSqlite3.Database, Map<string, BetterSqlite3.Statement>>();

function statementOf(connection: BetterSqlite3.Database, text: string): BetterSqlite3.Statement {
  let kept = statements.get(connection);
  if (!kept) statements.set(connection, (kept = new Map()));
  let statement = kept.get(text);
  if (!statement) kept.set(text, (statement = connection.prepare(text)));
  return statement;
}

/**
 * The rows of the statement `make` spells for the configured database: one of a fixed set of texts (each is kept
 * prepared for good), and it must not write.
 */
export function hotRead<R>(make: (dialect: DatabaseProvider) => HotQuery): Promise<R[]> {
  if (databaseProvider(env().DATABASE_URL) === "sqlite") {
    const run = (connection: BetterSqlite3.Database) => {
      const { text, values } = make("sqlite");
      return statementOf(connection, text).all(...values) as R[];
    };
    // Once the connection is open, the rows are read at once, without another turn of the event loop.
    const open = openCommittedSqlite();
    return open ? Promise.resolve(run(open)) : committedSqlite().then(run);
  }
  const { name, text, values } = make("postgresql");
  return hotPool()
    .query<R & object>({ name, text, values })
    .then((result) => result.rows);
}

/**
 * A small write beside the requests (a key's last use): on SQLite on the send writer's thread, so that neither its
 * wait for the write lock nor its commit blocks the event loop; on PostgreSQL as a named prepared statement on the
 * hot-path pool.
 */
export async function hotWrite(make: (dialect: DatabaseProvider) => HotQuery): Promise<void> {
  if (databaseProvider(env().DATABASE_URL) === "sqlite") {
    const { text, values } = make("sqlite");
    return runOnSendWriter(text, values);
  }
  const { name, text, values } = make("postgresql");
  await hotPool().query({ name, text, values });
}
