import { join } from "node:path";
import { Worker } from "node:worker_threads";
import { availableParallelism } from "node:os";
import type pg from "pg";
import { databaseProvider, env } from "../env";
import { postgresPool } from "./postgres-pool";
import { sqliteFilePath } from "./sqlite-path";
import { processSingleton } from "../process-singletons";
import { logger } from "../log";

// Where listings read: queries whose cost grows with the data (GET /v3/messages and the portal's Messages page), off
// the server's event loop and under a statement timeout. SQLite: reader threads with read-only connections of their
// own (better-sqlite3 blocks the thread it runs on); PostgreSQL: a small pool of its own whose connections carry
// statement_timeout, so the server's other queries never wait behind a listing for a connection.

/** A listing query ran past LISTING_TIMEOUT_SECONDS and was stopped. */
export class StatementTimeout extends Error {
  constructor() {
    super("statement timeout");
  }
}

export type ListingRow = Record<string, unknown>;

// One reader per core beyond the first, so that listings never take every core from the server's event loop (on
// 2 cores: one reader; a listing's count and page then run one after the other).
const READERS = Math.max(1, Math.min(4, availableParallelism() - 1));

class SqliteReaders {
  private readonly threads: { worker: Worker; pending: number }[] = [];
  /** When a thread stopped (0 while none has): these readers take no more reads. */
  stoppedAt = 0;
  /** Closed on purpose. */
  private closed = false;
  private nextId = 1;
  private readonly waiting = new Map<
    number,
    { resolve: (rows: ListingRow[]) => void; reject: (error: Error) => void; thread: { pending: number } }
  >();

  constructor(file: string) {
    // Resolved from the project root at run time, so that Next's bundler leaves the thread's file alone.
    const script = join(/*turbopackIgnore: true*/ process.cwd(), "lib/db/sqlite-listing-thread.mjs");
    for (let i = 0; i < READERS; i++) {
      const thread = { worker: new Worker(script, { workerData: { file } }), pending: 0 };
      thread.worker.unref();
      thread.worker.on(
        "message",
        (reply: { id: number; ok: boolean; rows?: ListingRow[]; timedOut?: boolean; message?: string }) => {
          const entry = this.waiting.get(reply.id);
          if (!entry) return;
          this.waiting.delete(reply.id);
          if (--thread.pending === 0) thread.worker.unref();
          if (reply.ok) entry.resolve(reply.rows ?? []);
          // Marked, not a StatementTimeout: the readers are shared by every copy of this module in the process (the
          // server's and Next's bundles), and readListing throws its own copy's class, which its callers test for.
          else
            entry.reject(Object.assign(new Error(reply.message ?? "SQLite read failed"), { timedOut: reply.timedOut }));
        },
      );
      const failWaiting = (error: Error) => {
        for (const [id, entry] of this.waiting) {
          if (entry.thread !== thread) continue;
          this.waiting.delete(id);
          entry.reject(error);
        }
        thread.pending = 0;
      };
      thread.worker.on("error", failWaiting);
      // A thread that stopped (it failed to start, say) answers nothing more: what waits on it fails, and the readers
      // are started afresh for a listing RESTART_AFTER_MS later.
      thread.worker.on("exit", (code) => {
        if (!this.closed) logger().warn({ code }, "a SQLite listing reader stopped; the readers start afresh");
        this.stoppedAt = Date.now();
        failWaiting(new Error("a SQLite listing reader stopped"));
      });
      this.threads.push(thread);
    }
  }

  all(sql: string, params: unknown[], timeoutMs: number): Promise<ListingRow[]> {
    if (this.stoppedAt > 0) return Promise.reject(new Error("a SQLite listing reader stopped"));
    const thread = this.threads.reduce((a, b) => (b.pending < a.pending ? b : a));
    const id = this.nextId++;
    return new Promise<ListingRow[]>((resolve, reject) => {
      this.waiting.set(id, { resolve, reject, thread });
      if (thread.pending++ === 0) thread.worker.ref();
      thread.worker.postMessage({ id, sql, params, timeoutMs });
    });
  }

  close(): void {
    this.closed = true;
    for (const { worker } of this.threads) worker.postMessage({ type: "close" });
  }
}

/** How long readers whose thread stopped keep refusing reads before they are started afresh. */
const RESTART_AFTER_MS = 5000;

const holder = processSingleton(
  "listing",
  (): { __parleyListing?: { url: string; sqlite?: SqliteReaders; pool?: pg.Pool } } => ({}),
);

function readers(): NonNullable<typeof holder.__parleyListing> {
  const url = env().DATABASE_URL;
  // Readers whose thread stopped are started afresh, at most once every few seconds (a thread that cannot start
  // would otherwise be started again by every read).
  const stoppedAt = holder.__parleyListing?.sqlite?.stoppedAt ?? 0;
  if (holder.__parleyListing?.url === url && (stoppedAt === 0 || Date.now() - stoppedAt < RESTART_AFTER_MS))
    return holder.__parleyListing;
  closeListingReaders();
  holder.__parleyListing =
    databaseProvider(url) === "sqlite"
      ? { url, sqlite: new SqliteReaders(sqliteFilePath(url)) }
      : {
          url,
          pool: postgresPool(url, {
            max: 4,
            statementTimeoutMs: Math.max(1, Math.round(env().LISTING_TIMEOUT_SECONDS * 1000)),
            allowExitOnIdle: true,
          }),
        };
  return holder.__parleyListing;
}

/**
 * The rows of one read-only query, `?` placeholders on SQLite and `$n` on PostgreSQL. Rejects with StatementTimeout
 * when it runs longer than LISTING_TIMEOUT_SECONDS.
 */
export async function readListing(sql: string, params: unknown[]): Promise<ListingRow[]> {
  const current = readers();
  const timeoutMs = env().LISTING_TIMEOUT_SECONDS * 1000;
  if (current.sqlite)
    return current.sqlite.all(sql, params, timeoutMs).catch((error: unknown) => {
      throw (error as { timedOut?: boolean }).timedOut ? new StatementTimeout() : error;
    });
  try {
    return (await current.pool!.query(sql, params)).rows as ListingRow[];
  } catch (error) {
    // 57014 query_canceled: what statement_timeout raises.
    if ((error as { code?: string }).code === "57014") throw new StatementTimeout();
    throw error;
  }
}

export function closeListingReaders(): void {
  const current = holder.__parleyListing;
  holder.__parleyListing = undefined;
  current?.sqlite?.close();
  void current?.pool?.end().catch(() => {});
}
