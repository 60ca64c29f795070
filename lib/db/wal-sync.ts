import { close, fdatasync, openSync } from "node:fs";
import { performance } from "node:perf_hooks";
import type BetterSqlite3 from "better-sqlite3";
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
// The WAL file is opened once and kept: SQLite removes it only when the database's last connection closes, and
// this process's connection stays open while it writes.

export class WalSync {
  private fd: number | null = null;
  private inFlight: Promise<void> | null = null;
  private next: Promise<void> | null = null;

  constructor(readonly walPath: string) {}

  /** Resolves once a sync that started after this call has finished. */
  sync(): Promise<void> {
    if (this.next) return this.next;
    if (!this.inFlight) return this.start();
    // The sync in flight may have begun before the caller's commit: the one after it covers the commit.
    const next = this.inFlight
      .catch(() => undefined)
      .then(() => {
        this.next = null;
        return this.start();
      });
    this.next = next;
    return next;
  }

  async close(): Promise<void> {
    await Promise.allSettled([this.inFlight, this.next]);
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
    return new Promise<void>((resolve, reject) => {
      // Opened at the first sync (the file exists once the first transaction has committed), and kept.
      let fd: number;
      try {
        fd = this.fd ??= openSync(this.walPath, "r");
      } catch (error) {
        reject(error);
        return;
      }
      fdatasync(fd, (error) => {
        if (error) return reject(error);
        walSynced((performance.now() - started) / 1000);
        resolve();
      });
    });
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
    sync = wal ? new WalSync(`${connection.name}-wal`) : null;
    syncs.byConnection.set(connection, sync);
  }
  return sync;
}

/** Closes the WAL files kept open for syncing (the process closes its connections). */
export async function closeWalSyncs(): Promise<void> {
  const all = [...syncs.byConnection.values()];
  syncs.byConnection.clear();
  await Promise.all(all.map((sync) => sync?.close()));
}
