import { close, closeSync, fdatasync, openSync } from "node:fs";
import { performance } from "node:perf_hooks";
import type BetterSqlite3 from "better-sqlite3";
import { logger } from "../log";
import { processSingleton } from "../process-singletons";
import { walSynced } from "./write-lock-watch";

// The disk sync of a process's SQLite write transactions (lib/db/steps.ts), off the event loop.
//
// With synchronous=FULL, SQLite's COMMIT ends with an fdatasync of the WAL file: about a millisecond on this kind of
// disk, during which the process's event loop stands still and the write lock (the send path's too) stays taken.
// The transactions of lib/db/steps.ts commit with synchronous=NORMAL instead (the frames are written to the WAL,
// not synced; the lock is free at once), and their callers are answered only after this syncs the WAL file on
// libuv's thread pool. A sync that starts after a commit makes that commit as durable as FULL would have: the WAL
// on disk then holds its frames, and recovery replays them. Commits that finish while a sync runs share the next
// one. Prisma's own writes on the same connection keep synchronous=FULL.
//
// Unlike FULL, other connections see such a commit about a millisecond before it is on disk. Whatever leaves the
// process because of a row (a part to the SMSC, a webhook post, a receipt's acknowledgement) follows a write
// transaction of its own (the reservation, the claim, the receipt's record) and so a sync of the whole file, made
// after that transaction: the row it acted on is on disk first, whichever connection wrote it. A listing or the live
// view may show a row that a power cut then takes back, as it takes back a send not yet answered.
//
// A failed sync is fatal: after one, Linux may have dropped the dirty pages as if written, so no later sync could
// vouch for them, and the commit cannot be taken back to answer "not written". The process exits, and recovery
// (SQLite's, from the WAL) decides what was committed; a client not answered retries, with its Idempotency-Key.
//
// The WAL file is the one SQLite uses (next to the database's real path, symbolic links resolved), opened once and
// kept: SQLite removes it only when the database's last connection closes, and this process's stays open while it
// writes.

type Datasync = (fd: number, done: (error: NodeJS.ErrnoException | null) => void) => void;

export class WalSync {
  private fd: number | null = null;
  private inFlight: Promise<void> | null = null;
  private next: Promise<void> | null = null;
  private closed = false;

  /** `datasync`: fs.fdatasync, or a stand-in that tests time. */
  constructor(
    readonly walPath: string,
    private readonly datasync: Datasync = fdatasync,
  ) {}

  /** Resolves once a sync that started after this call has finished. */
  sync(): Promise<void> {
    if (this.next) return this.next;
    if (!this.inFlight) return this.start();
    // The sync in flight may have begun before the caller's commit: the one after it covers the commit.
    const next = this.inFlight.then(() => {
      this.next = null;
      return this.start();
    });
    this.next = next;
    return next;
  }

  /** Waits for the syncs asked for, then closes the file; a sync asked for later opens it for itself. */
  async close(): Promise<void> {
    this.closed = true;
    while (this.inFlight || this.next) await Promise.allSettled([this.inFlight, this.next]);
    const fd = this.fd;
    this.fd = null;
    if (fd !== null) await new Promise<void>((resolve) => close(fd, () => resolve()));
  }

  private start(): Promise<void> {
    const run = this.syncOnce().finally(() => {
      if (this.inFlight === run) this.inFlight = null;
    });
    this.inFlight = run;
    return run;
  }

  private syncOnce(): Promise<void> {
    const started = performance.now();
    return new Promise<void>((resolve) => {
      let fd: number;
      try {
        // Opened at the first sync (the file exists once the first transaction has committed), and kept.
        fd = this.closed ? openSync(this.walPath, "r") : (this.fd ??= openSync(this.walPath, "r"));
      } catch (error) {
        walSyncFailed(this.walPath, error);
        return;
      }
      this.datasync(fd, (error) => {
        if (this.closed && fd !== this.fd) closeSync(fd);
        if (error) return walSyncFailed(this.walPath, error);
        walSynced((performance.now() - started) / 1000);
        resolve();
      });
    });
  }
}

/**
 * After a commit the WAL could not be synced (here, or on the send writer's thread): the process stops (see above),
 * without settling the callers' promises.
 */
export function walSyncFailed(walPath: string, error: unknown): void {
  const detail = `the SQLite WAL ${walPath} could not be synced to disk after a commit; stopping`;
  try {
    logger().fatal({ err: error, walPath }, detail);
  } finally {
    process.stderr.write(`Parley: ${detail}: ${(error as Error)?.message ?? String(error)}\n`);
    process.exit(70);
  }
}

const syncs = processSingleton("walSyncs", (): { byConnection: Map<BetterSqlite3.Database, WalSync | null> } => ({
  byConnection: new Map(),
}));

/**
 * The WAL sync of `connection`, or null when its commits must sync themselves: a database in memory, or one not in
 * WAL mode (NORMAL would then risk the last transactions on a crash of the machine).
 */
export function walSyncOf({
  connection,
  prepared,
}: {
  connection: BetterSqlite3.Database;
  prepared: (sql: string) => BetterSqlite3.Statement;
}): WalSync | null {
  let sync = syncs.byConnection.get(connection);
  if (sync === undefined) {
    const mode = connection.memory ? null : prepared("PRAGMA journal_mode").raw(false).get();
    const wal = (mode as { journal_mode?: string } | null)?.journal_mode === "wal";
    // The main database's path as SQLite resolved it: its WAL sits beside that file.
    const main = wal ? (prepared("PRAGMA database_list").raw(false).all() as { name: string; file: string }[]) : [];
    const file = main.find((row) => row.name === "main")?.file;
    sync = file ? new WalSync(`${file}-wal`) : null;
    syncs.byConnection.set(connection, sync);
  }
  return sync;
}

/** Closes the WAL files kept open for syncing (the process has closed its connections). */
export async function closeWalSyncs(): Promise<void> {
  const all = [...syncs.byConnection.values()];
  syncs.byConnection.clear();
  await Promise.all(all.map((sync) => sync?.close()));
}
