import { beginWaiting, db, dbProvider, sqliteHandle, type SqliteHandle } from "./client";
import { isBusy } from "./sqlite-busy.mjs";
import { walSyncOf } from "./wal-sync";
import { writeLockHeld } from "./write-lock-watch";

// A transaction's statements written once, as a generator of steps: each `yield*` of query() or execute() is one
// statement, whose rows (or changed-row count) come back as the value of the yield. Two drivers run the same body:
// - runSteps() on a Prisma client or inside a caller's Prisma transaction, a statement at a time (PostgreSQL, and
//   callers that write more in their own transaction);
// - readTransaction() on SQLite runs reads the same way as writes below, without the write lock;
// - writeTransaction() on SQLite runs a whole body synchronously, from BEGIN IMMEDIATE to COMMIT, on the connection
//   under Prisma's client (between Prisma's own transactions). Through Prisma each statement is an asynchronous
//   hop, so a transaction of a dozen statements held SQLite's one write lock for 15–175 ms while the process served
//   other work in between, and every other writer (the send path above all) waited that long; run in one go it
//   holds the lock for what the statements cost.
// Values are bound in the forms the database stores (boundValue), statements use placeholder(): the SQL is the
// configured database's. Rows come back as that database's driver gives them (SQLite: dates as text, booleans 0/1,
// integers as BigInt): bodies convert what they read.

export type Row = Record<string, unknown>;

export type Step =
  | { kind: "query"; sql: string; values: unknown[] }
  | { kind: "execute"; sql: string; values: unknown[] }
  | { kind: "afterCommit"; run: () => void };

export type Steps<T> = Generator<Step, T, unknown>;

/** A statement that returns rows (SELECT, or a write with RETURNING). */
export function* query<R = Row>(sql: string, values: unknown[] = []): Steps<R[]> {
  return (yield { kind: "query", sql, values }) as R[];
}

/** A statement without rows; its value is the number of rows it changed. */
export function* execute(sql: string, values: unknown[] = []): Steps<number> {
  return (yield { kind: "execute", sql, values }) as number;
}

/**
 * Work for once the transaction has committed (a wake-up for readers of what it wrote). Its value says whether it will
 * run only once the transaction has committed, and not at all if it rolls back: true under writeTransaction (and
 * SQLite's readTransaction, once the read ends); false under runSteps, which runs it at once or hands it to its
 * caller's `later` (inside a caller's transaction it cannot know when, or whether, that commits). A body that hands
 * what it wrote to others in this process (before another process could see it) does so only when true.
 */
export function* afterCommit(run: () => void): Steps<boolean> {
  return (yield { kind: "afterCommit", run }) === true;
}

export interface RawClient {
  $queryRawUnsafe<T = unknown>(query: string, ...values: unknown[]): Promise<T>;
  $executeRawUnsafe(query: string, ...values: unknown[]): Promise<number>;
}

/**
 * Runs `steps` through a Prisma client or transaction; after-commit work goes to `later` (by default, at once).
 * `exact`: `later` runs its work once the transaction has committed and never after a rollback (writeTransaction's
 * own transaction); the after-commit steps are told so.
 */
export async function runSteps<T>(
  client: RawClient,
  steps: Steps<T>,
  later: (run: () => void) => void = (run) => run(),
  exact = false,
): Promise<T> {
  let next = steps.next();
  while (!next.done) {
    const step = next.value;
    let result: unknown;
    if (step.kind === "query") result = await client.$queryRawUnsafe(step.sql, ...step.values);
    else if (step.kind === "execute") result = await client.$executeRawUnsafe(step.sql, ...step.values);
    else {
      later(step.run);
      result = exact;
    }
    next = steps.next(result);
  }
  return next.value;
}

/**
 * Reads made of `make()`'s steps. On SQLite they run in one synchronous go on the Prisma client's connection, from
 * one snapshot (a deferred transaction: no write lock), without Prisma's client in between; on PostgreSQL each runs
 * through Prisma as a statement of its own, with its own snapshot. `make` must not write.
 */
export async function readTransaction<T>(make: () => Steps<T>): Promise<T> {
  if (dbProvider() === "sqlite") {
    const later: (() => void)[] = [];
    const result = await sqliteTransaction("BEGIN", make, later);
    for (const run of later) run();
    return result;
  }
  return runSteps(db() as unknown as RawClient, make());
}

/**
 * One write transaction made of `make()`'s steps; its after-commit work runs once it has committed. On SQLite the
 * write lock is waited for without blocking this process (another transaction of its own, through Prisma, may be
 * what holds it), and once taken the body runs to COMMIT in one synchronous go: `make` must not do other I/O.
 */
export async function writeTransaction<T>(make: () => Steps<T>): Promise<T> {
  if (dbProvider() === "sqlite") return groupedWrite(make);
  const later: (() => void)[] = [];
  const result = await db().$transaction((tx) =>
    runSteps(tx as unknown as RawClient, make(), (run) => later.push(run), true),
  );
  for (const run of later) run();
  return result;
}

// --- SQLite: the write transactions of one turn of the event loop, committed together ---------------------------
//
// Every SQLite COMMIT is a disk sync (made off the event loop here: lib/db/wal-sync.ts) and a hold of the one write
// lock that the send path's writer waits for. The worker issues many small write transactions from independent
// loops (a round's record, a batch of receipts, a batch of webhook outcomes, a webhook claim); those asked for in the
// same turn of the event loop run in one transaction, each body inside a SAVEPOINT of its own: a body that throws is
// rolled back alone and its caller gets the error, the others commit. Each caller's promise settles, and its
// after-commit work runs, once the shared COMMIT is done and synced, exactly as if it had committed alone.

interface QueuedWrite {
  make: () => Steps<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

let queuedWrites: QueuedWrite[] = [];
let groupWindowMs = 0;

/**
 * How long the first write transaction of a group waits for others to join it: 0 (the default) groups those asked
 * for in the same turn of the event loop. The delivery worker, whose writes are many, small and not waited on by a
 * client, sets a few milliseconds.
 */
export function groupWritesWithin(ms: number): void {
  groupWindowMs = ms;
}

function groupedWrite<T>(make: () => Steps<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    queuedWrites.push({ make, resolve: resolve as (value: unknown) => void, reject });
    if (queuedWrites.length > 1) return;
    if (groupWindowMs > 0) setTimeout(commitQueuedWrites, groupWindowMs);
    else setImmediate(commitQueuedWrites);
  });
}

/**
 * The most a group's transaction runs bodies for (ms) before it commits and leaves the rest of the group to the next
 * one: the send path's writer waits for the one write lock meanwhile, so a group of a round's record, a batch of
 * receipts and webhook outcomes held it for 100–145 ms under load (sends' p99 60–100 ms at 1,000–2,000 a second).
 * A body is never split: one that runs longer than this alone is its own transaction.
 */
const GROUP_HOLD_MS = 8;
/** The pause between a group's transactions, long enough for a writer that polls for the lock to take it. */
const GROUP_PAUSE_MS = 1;

function commitQueuedWrites(): void {
  const group = queuedWrites;
  queuedWrites = [];
  if (group.length === 1) {
    const [only] = group;
    const later: (() => void)[] = [];
    sqliteTransaction("BEGIN IMMEDIATE", only!.make, later).then((value) => {
      only!.resolve(value);
      for (const run of later) run();
    }, only!.reject);
    return;
  }
  // Outcomes per body, filled in by the shared transaction's body (which never throws for one of them); the bodies
  // it had no time for are left out, for the next transaction.
  const outcomes: ({ ok: true; value: unknown; later: (() => void)[] } | { ok: false; error: unknown })[] = [];
  const shared = function* (): Steps<void> {
    outcomes.length = 0;
    const started = performance.now();
    for (const { make } of group) {
      if (outcomes.length > 0 && performance.now() - started >= GROUP_HOLD_MS) return;
      const later: (() => void)[] = [];
      yield* execute("SAVEPOINT parley_write");
      try {
        const value = yield* collectLater(make(), later);
        yield* execute("RELEASE parley_write");
        outcomes.push({ ok: true, value, later });
      } catch (error) {
        yield* execute("ROLLBACK TO parley_write");
        yield* execute("RELEASE parley_write");
        outcomes.push({ ok: false, error });
      }
    }
  };
  sqliteTransaction("BEGIN IMMEDIATE", shared, []).then(
    () => {
      const rest = group.slice(outcomes.length);
      if (rest.length > 0) {
        // Into the next transaction, after a pause (a write asked for since may commit first: the bodies of a group
        // are independent of each other; its timer, already set, then runs the whole queue).
        if (queuedWrites.length === 0) setTimeout(commitQueuedWrites, GROUP_PAUSE_MS);
        queuedWrites = [...rest, ...queuedWrites];
      }
      for (const [i, outcome] of outcomes.entries()) {
        if (!outcome.ok) {
          group[i]!.reject(outcome.error);
          continue;
        }
        group[i]!.resolve(outcome.value);
        for (const run of outcome.later) run();
      }
    },
    (error: unknown) => {
      for (const { reject } of group) reject(error);
    },
  );
}

/** A statement step: what is left of a body once its after-commit work is set aside. */
type StatementStep = Exclude<Step, { kind: "afterCommit" }>;

/**
 * Runs `steps`, passing every statement (and a statement's error) through and keeping its after-commit work in
 * `later`.
 */
function* collectLater<T>(steps: Steps<T>, later: (() => void)[]): Generator<StatementStep, T, unknown> {
  let next = steps.next();
  while (!next.done) {
    const step = next.value;
    if (step.kind === "afterCommit") {
      later.push(step.run);
      next = steps.next(true);
      continue;
    }
    let result: unknown;
    try {
      result = yield step;
    } catch (error) {
      next = steps.throw(error);
      continue;
    }
    next = steps.next(result);
  }
  return next.value;
}

const LOCK_DEADLINE_MS = 10_000;
/** How long one try waits for the lock synchronously (the send writer's commits take about this long). */
const SPIN_MS = 2;
const BUSY = Symbol("busy");

async function sqliteTransaction<T>(
  begin: "BEGIN" | "BEGIN IMMEDIATE",
  make: () => Steps<T>,
  later: (() => void)[],
): Promise<T> {
  const handle = await sqliteHandle();
  // A write commits without its disk sync, which follows off the event loop before the caller hears of it (see
  // lib/db/wal-sync.ts); without a WAL to sync, the commit syncs itself.
  const walSync = begin === "BEGIN IMMEDIATE" ? walSyncOf(handle) : null;
  const deadline = Date.now() + LOCK_DEADLINE_MS;
  for (;;) {
    const outcome = tryTransaction(handle, begin, make, later, Date.now() >= deadline, walSync !== null);
    if (outcome !== BUSY) {
      await walSync?.sync();
      return outcome;
    }
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

/**
 * BEGIN (IMMEDIATE, to write), the body and COMMIT, all synchronous, on Prisma's own connection; BUSY (nothing run)
 * while one of Prisma's interactive transactions is open on it, or while another connection holds the write lock.
 */
function tryTransaction<T>(
  handle: SqliteHandle,
  begin: "BEGIN" | "BEGIN IMMEDIATE",
  make: () => Steps<T>,
  later: (() => void)[],
  last: boolean,
  syncedLater: boolean,
): T | typeof BUSY {
  const { connection, prepared } = handle;
  if (connection.inTransaction) {
    if (last) throw new Error("a transaction stayed open on the SQLite connection");
    return BUSY;
  }
  // Set for this transaction alone: Prisma's writes on the connection keep synchronous=FULL.
  if (syncedLater) prepared("PRAGMA synchronous = NORMAL").run();
  try {
    return runTransaction(handle, begin, make, later, last);
  } finally {
    // Not inside a transaction (SQLite refuses it there): only a failed ROLLBACK leaves one open, and the error
    // that caused it is the one to report; the next transaction of steps sets the level again.
    if (syncedLater && !connection.inTransaction) prepared("PRAGMA synchronous = FULL").run();
  }
}

function runTransaction<T>(
  { connection, prepared }: SqliteHandle,
  begin: "BEGIN" | "BEGIN IMMEDIATE",
  make: () => Steps<T>,
  later: (() => void)[],
  last: boolean,
): T | typeof BUSY {
  try {
    beginWaiting(connection, () => prepared(begin).run(), SPIN_MS);
  } catch (error) {
    if (!last && isBusy(error)) return BUSY;
    throw error;
  }
  const locked = performance.now();
  try {
    const steps = collectLater(make(), later);
    let next = steps.next();
    while (!next.done) {
      const step = next.value;
      let result: unknown;
      try {
        const statement = prepared(step.sql);
        // Prisma's reads of the same statement switch it to arrays: objects here.
        result =
          step.kind === "query" ? statement.raw(false).all(...step.values) : statement.run(...step.values).changes;
      } catch (error) {
        // Into the body: one that does not catch it ends here (rolled back below); a group of bodies rolls back the
        // failing one's savepoint only.
        next = steps.throw(error);
        continue;
      }
      next = steps.next(result);
    }
    prepared("COMMIT").run();
    if (begin === "BEGIN IMMEDIATE") writeLockHeld("transactions", performance.now() - locked);
    return next.value;
  } catch (error) {
    later.length = 0;
    if (connection.inTransaction) prepared("ROLLBACK").run();
    throw error;
  }
}
