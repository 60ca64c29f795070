import { processSingleton } from "../process-singletons";

// How long each write transaction held SQLite's one write lock. Every writer of the file (the send writer's thread,
// each process's grouped write transactions, the body indexer) takes it in turn, and under load it is what bounds
// the sends a server accepts and the messages a worker delivers (docs/PERFORMANCE.md). lib/db imports nothing above
// it: lib/metrics registers the watcher that counts the holds (parley_sqlite_write_lock_held_seconds).
// Prisma's own interactive transactions (portal edits, the CLI) are not measured.

/** Who held it: a process's write transactions (lib/db/steps.ts), the send writer's thread, the body indexer's. */
export type WriteLockHolder = "transactions" | "send_writer" | "body_indexer";

type Watcher = (holder: WriteLockHolder, seconds: number) => void;
type SyncWatcher = (seconds: number) => void;

const watch = processSingleton("writeLockWatch", (): { watcher: Watcher | null; syncWatcher: SyncWatcher | null } => ({
  watcher: null,
  syncWatcher: null,
}));

export function watchWriteLock(watcher: Watcher | null): void {
  watch.watcher = watcher;
}

/** One write transaction of `holder` held the lock for `ms` milliseconds, from its first statement to its commit. */
export function writeLockHeld(holder: WriteLockHolder, ms: number): void {
  watch.watcher?.(holder, ms / 1000);
}

export function watchWalSyncs(watcher: SyncWatcher | null): void {
  watch.syncWatcher = watcher;
}

/** A sync of the WAL file for this process's write transactions took `seconds` (lib/db/wal-sync.ts). */
export function walSynced(seconds: number): void {
  watch.syncWatcher?.(seconds);
}
