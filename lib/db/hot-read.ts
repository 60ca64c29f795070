import { databaseProvider, env, type DatabaseProvider } from "../env";
import { committedSqlite, openCommittedSqlite, type SqliteHandle } from "./client";
import { hotPool } from "./pg-hot-path";

// The send path's hot reads (a send's destinations' opt states): a Prisma query costs about a millisecond of the
// main thread here, which cut single-destination sends by a third (bench:send). On SQLite they run as kept prepared
// statements on the committed-data connection under readDb() (microseconds; WAL lets it read while the send
// writer's thread commits); on PostgreSQL as named prepared statements on the hot-path pool.

/** One statement in the dialect it was asked for: `?` placeholders on SQLite, `$n` on PostgreSQL. */
export interface HotQuery {
  /** The prepared statement's name on PostgreSQL. */
  name: string;
  text: string;
  values: unknown[];
}

/** The rows of the statement `make` spells for the configured database; it must not write. */
export function hotRead<R>(make: (dialect: DatabaseProvider) => HotQuery): Promise<R[]> {
  if (databaseProvider(env().DATABASE_URL) === "sqlite") {
    const run = ({ prepared }: SqliteHandle) => {
      const { text, values } = make("sqlite");
      return prepared(text).all(...values) as R[];
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
