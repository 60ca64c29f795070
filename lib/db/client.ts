// The ways into the database. lib/db opens every connection, and tells the dialects apart (SQLite or PostgreSQL, by
// the DATABASE_URL scheme: databaseProvider() in lib/env.ts) so that the layers above need not:
// - Prisma, `db()`: ordinary reads and writes, on both dialects; `readDb()` for readers that must see committed data
//   only (the live view's change feed).
// - `steps` (steps.ts: writeTransaction, readTransaction, runSteps): hot transactions written once as statements;
//   synchronous on SQLite's connection under db() (sqliteHandle() below), raw queries on PostgreSQL.
// - The send path: the group commit (group-commit.ts, commitSendWrite: SQLite's writer thread, PostgreSQL's hot-path
//   pool in pg-hot-path.ts) and hotRead() (hot-read.ts: a send's reads, on the committed-data SQLite connection of
//   readDb(), committedSqlite() below, or the hot-path pool).
// - SQLite's threads for work off the event loop: listings (listing-reader.ts; a pool with a statement timeout on
//   PostgreSQL) and the body indexer (body-indexer.ts).
// A domain spells its SQL in its own *-queries.ts module and runs it through one of these. Process-wide connections
// and threads are held by lib/process-singletons.ts.
import { PrismaBetterSqlite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";
import type BetterSqlite3 from "better-sqlite3";
import { PrismaClient as SqliteClient } from "./generated/sqlite/client";
import { PrismaClient as PostgresClient } from "./generated/postgresql/client";
import { databaseProvider, env, type DatabaseProvider } from "../env";
import { sqliteFilePath } from "./sqlite-path";
import { whileBusy } from "./sqlite-busy.mjs";
import { WAL_BACKSTOP_PAGES } from "./sqlite-checkpoints.mjs";
import { closeListingReaders } from "./listing-reader";
import { closeHotPool } from "./pg-hot-path";
import { postgresPool } from "./postgres-pool";
import { keptStatements } from "./kept-statements";
import { closeWalSyncs } from "./wal-sync";
import { processSingleton } from "../process-singletons";

// Both generated clients have the same API (they come from one schema), so the SQLite client's type stands for
// either. The few provider differences (case-insensitive `contains`) are handled where they arise.
export type Db = SqliteClient;

interface DbHolder {
  client: Db;
  provider: DatabaseProvider;
  url: string;
}

// One client per process: the fast /v3 path in server.ts and Next's bundled route handlers share it (and its
// connection pool) instead of each opening their own.
const holder = processSingleton("db", (): { __parleyDb?: DbHolder } => ({}));

export function dbProvider(): DatabaseProvider {
  return databaseProvider(env().DATABASE_URL);
}

// Prisma's defaults (2 s to get a connection, 5 s for the whole transaction) would abort a worker's batch of
// thousands of receipts on a busy machine, and a rolled-back batch must be done again; the limits only guard
// against a transaction left open by a bug.
const TRANSACTION_OPTIONS = { maxWait: 15_000, timeout: 60_000 };

/**
 * SQLite through Prisma's better-sqlite3 adapter, whose interactive transactions begin with `BEGIN IMMEDIATE`
 * rather than the adapter's plain (deferred) `BEGIN`. A deferred transaction that reads and then writes is refused
 * outright (SQLITE_BUSY_SNAPSHOT, no busy wait) when another connection — the send writer's thread, the body
 * indexer's, the delivery worker's process — committed in between: a portal edit would fail with a 500 at random
 * under traffic. Taking the write lock at the start makes such a transaction wait its turn instead; and it waits in
 * fractions of a millisecond (SQLite's own busy wait sleeps 25–100 ms at a time once it has waited a little, all of
 * it blocking this thread), for at most the busy timeout.
 */
function sqliteAdapter(url: string): PrismaBetterSqlite3 {
  const factory = new PrismaBetterSqlite3({ url: sqliteFilePath(url), timeout: SQLITE_BUSY_TIMEOUT_MS });
  const connect = factory.connect.bind(factory);
  factory.connect = async () => {
    const adapter = await connect();
    const connection = (adapter as unknown as { client: BetterSqlite3.Database }).client;
    const prepare = connection.prepare.bind(connection);
    const prepared = keptStatements(prepare);
    const view = preparedOnce(prepared);
    (connection as { prepare: unknown }).prepare = (sql: string) =>
      sql === "BEGIN" ? { run: () => beginImmediate(connection, prepare) } : view(sql);
    sqliteHolder.__parleySqlite = { url, connection, prepared };
    return adapter;
  };
  return factory;
}

/**
 * The better-sqlite3 connection under the Prisma client of this process, with its kept statements: lib/db/steps.ts
 * runs its synchronous transactions on it, between Prisma's, so that the process keeps one connection (and one
 * page cache: SQLite empties a connection's cache whenever another connection has written).
 */
export interface SqliteHandle {
  connection: BetterSqlite3.Database;
  prepared: (sql: string) => BetterSqlite3.Statement;
}
const sqliteHolder = processSingleton("sqlite", (): { __parleySqlite?: SqliteHandle & { url: string } } => ({}));

export async function sqliteHandle(): Promise<SqliteHandle> {
  const url = env().DATABASE_URL;
  const current = () => {
    const handle = sqliteHolder.__parleySqlite;
    return handle && handle.url === url && handle.connection.open ? handle : null;
  };
  const handle = current();
  if (handle) return handle;
  await db().$connect();
  const connected = current();
  if (!connected) throw new Error("the SQLite connection of the Prisma client is not open");
  return connected;
}

interface SqliteStatement {
  reader: boolean;
  run(...args: unknown[]): unknown;
  columns(): unknown[];
  raw(on?: boolean): SqliteStatement;
  all(...args: unknown[]): unknown[];
  bind(...args: unknown[]): SqliteStatement;
}

/**
 * The adapter prepares every query anew (~30–60 µs of SQLite's parser and planner each time, on the event loop) and
 * binds its arguments to it for good. This keeps each statement prepared once and hands the adapter a per-call view
 * that runs it with that call's arguments: same results, without the parse.
 */
function preparedOnce(prepared: (sql: string) => unknown): (sql: string) => unknown {
  return (sql) => {
    const statement = prepared(sql) as SqliteStatement;
    return {
      reader: statement.reader,
      columns: () => statement.columns(),
      run: (...args: unknown[]) => statement.run(...args),
      bind: (args: unknown[]) => ({
        reader: statement.reader,
        columns: () => statement.columns(),
        run: () => statement.run(args),
        raw: () => ({ all: () => statement.raw(true).all(args) }),
      }),
    };
  };
}

const SQLITE_BUSY_TIMEOUT_MS = 10_000;

function beginImmediate(connection: BetterSqlite3.Database, prepare: BetterSqlite3.Database["prepare"]): unknown {
  return beginWaiting(connection, () => prepare("BEGIN IMMEDIATE").run(), SQLITE_BUSY_TIMEOUT_MS);
}

/**
 * Runs `begin` (a BEGIN statement) on a connection of this process, trying again in fractions of a millisecond while
 * another connection holds the write lock, for at most `deadlineMs`; then SQLITE_BUSY is thrown. The connection's
 * own busy wait (25–100 ms sleeps) is off meanwhile.
 */
export function beginWaiting(connection: BetterSqlite3.Database, begin: () => unknown, deadlineMs: number): unknown {
  const timeouts = busyTimeoutsOf(connection);
  timeouts.off.get();
  try {
    return whileBusy(begin, { deadlineMs });
  } finally {
    timeouts.on.get();
  }
}

// The two busy-timeout pragmas around every write transaction, prepared once per connection (`pragma()` prepares
// its statement on each call: two parses a transaction).
const busyTimeouts = new WeakMap<
  BetterSqlite3.Database,
  { off: BetterSqlite3.Statement; on: BetterSqlite3.Statement }
>();

function busyTimeoutsOf(connection: BetterSqlite3.Database): {
  off: BetterSqlite3.Statement;
  on: BetterSqlite3.Statement;
} {
  let timeouts = busyTimeouts.get(connection);
  if (!timeouts) {
    // The driver's own prepare: the Prisma client's connection has its `prepare` replaced (sqliteAdapter above).
    const prepare = (Object.getPrototypeOf(connection) as BetterSqlite3.Database).prepare.bind(connection);
    timeouts = {
      off: prepare("PRAGMA busy_timeout = 0"),
      on: prepare(`PRAGMA busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`),
    };
    busyTimeouts.set(connection, timeouts);
  }
  return timeouts;
}

export function db(): Db {
  const url = env().DATABASE_URL;
  if (holder.__parleyDb && holder.__parleyDb.url === url) return holder.__parleyDb.client;
  const provider = databaseProvider(url);
  const client =
    provider === "sqlite"
      ? new SqliteClient({
          adapter: sqliteAdapter(url),
          transactionOptions: TRANSACTION_OPTIONS,
        })
      : (new PostgresClient({
          adapter: new PrismaPg(postgresPool(url), { disposeExternalPool: true }),
          transactionOptions: TRANSACTION_OPTIONS,
        }) as unknown as Db);
  holder.__parleyDb = { client, provider, url };
  return client;
}

const readHolder = processSingleton("readDb", (): { __parleyReadDb?: { client: Db; url: string } } => ({}));

/**
 * A client that sees committed data only, for readers that must not see another transaction half done (the live
 * view's change feed). On SQLite, the main client's single connection also runs the open transactions of this
 * process, and a read on it sees their uncommitted rows (an SDR before its message's new status, say): this is a
 * second connection. On PostgreSQL every query gets a pooled connection of its own anyway: the main client.
 */
export function readDb(): Db {
  const url = env().DATABASE_URL;
  if (databaseProvider(url) !== "sqlite") return db();
  if (readHolder.__parleyReadDb && readHolder.__parleyReadDb.url === url) return readHolder.__parleyReadDb.client;
  const factory = new PrismaBetterSqlite3({ url: sqliteFilePath(url), timeout: 10_000 });
  const connect = factory.connect.bind(factory);
  factory.connect = async () => {
    const adapter = await connect();
    const connection = (adapter as unknown as { client: BetterSqlite3.Database }).client;
    committedHolder.__parleyCommittedSqlite = { url, connection };
    return adapter;
  };
  const client = new SqliteClient({ adapter: factory });
  readHolder.__parleyReadDb = { client, url };
  return client;
}

const committedHolder = processSingleton(
  "committedSqlite",
  (): { __parleyCommittedSqlite?: { url: string; connection: BetterSqlite3.Database } } => ({}),
);

/**
 * SQLite: the connection under readDb(), which sees committed data only: the send path's hot reads
 * (lib/db/hot-read.ts) run on it synchronously, without Prisma's client in between.
 */
export async function committedSqlite(): Promise<BetterSqlite3.Database> {
  const handle = openCommittedSqlite();
  if (handle) return handle;
  await readDb().$connect();
  const connected = openCommittedSqlite();
  if (!connected) throw new Error("the SQLite connection of the committed-data client is not open");
  return connected;
}

/** committedSqlite() when it is open already, without a turn of the event loop; else null. */
export function openCommittedSqlite(): BetterSqlite3.Database | null {
  const handle = committedHolder.__parleyCommittedSqlite;
  return handle && handle.url === env().DATABASE_URL && handle.connection.open ? handle.connection : null;
}

// SQLite: WAL lets readers proceed during a write, and synchronous=FULL makes every commit durable on disk
// before the API answers (the promise: accepted messages are never lost). Group commit keeps this cheap. The write
// transactions of steps.ts commit at NORMAL and are answered after a sync of their own (lib/db/wal-sync.ts).
export async function prepareConnection(): Promise<void> {
  if (dbProvider() !== "sqlite") return;
  const client = db();
  await client.$queryRawUnsafe("PRAGMA journal_mode = WAL");
  await client.$queryRawUnsafe("PRAGMA synchronous = FULL");
  await client.$queryRawUnsafe("PRAGMA foreign_keys = ON");
  // Checkpoints run in the background (lib/db/sqlite-checkpoints.mjs), not after this connection's commits.
  await client.$queryRawUnsafe(`PRAGMA wal_autocheckpoint = ${WAL_BACKSTOP_PAGES}`);
}

export async function disconnectDb(): Promise<void> {
  const writer = processSingleton("sendWriter", (): { __parleySendWriter?: { writer: { close(): void } } } => ({}));
  writer.__parleySendWriter?.writer.close();
  writer.__parleySendWriter = undefined;
  closeListingReaders();
  closeHotPool();
  const current = holder.__parleyDb;
  holder.__parleyDb = undefined;
  if (current) await current.client.$disconnect();
  // After the connection: a write that was still running has asked for its sync by now.
  await closeWalSyncs();
  const reader = readHolder.__parleyReadDb;
  readHolder.__parleyReadDb = undefined;
  if (reader) await reader.client.$disconnect();
}
