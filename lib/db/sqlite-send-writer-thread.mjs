// The SQLite send writer's thread: commits each batch of the group commit with prepared statements and a durable
// sync, off the main thread, so that the server keeps reading requests (and filling the next batch) meanwhile; and
// the few small writes beside the requests (an API key's last use: SqliteSendWriter.run) the same way.
// Plain JavaScript: it runs as a worker thread under tsx and under Next's server alike.
import { fdatasyncSync, openSync, closeSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { parentPort, workerData } from "node:worker_threads";
import Database from "better-sqlite3";
import { whileBusy } from "./sqlite-busy.mjs";
import { SameTextWindow } from "./same-text-window.mjs";
import { WAL_BACKSTOP_PAGES } from "./sqlite-checkpoints.mjs";

// No busy timeout: SQLite's own waits for another process's write lock (the delivery worker's) sleep 1, 2, 5 … then
// 25–100 ms at a time, which is what an answer would wait on; this thread tries again every fraction of a
// millisecond instead (whileBusy).
const sqlite = new Database(workerData.file, { timeout: 0 });
sqlite.pragma("journal_mode = WAL");
// Durable: the commit is on disk before any request of the batch is answered. The commit itself does not sync
// (NORMAL): the write lock is given back as soon as the batch's frames are in the WAL, and this thread then syncs the
// WAL file before it answers (the other writers, the delivery worker above all, need not wait for this disk's sync).
// The file stays while this connection is open: SQLite removes it only when the database's last connection closes.
// A sync that fails is fatal (lib/db/wal-sync.ts says why): the batch is committed and cannot be answered as
// not written, so the server stops without answering it.
sqlite.pragma("synchronous = NORMAL");
// The WAL sits beside the database's real path (symbolic links resolved), as SQLite reports it.
const walPath = `${sqlite.pragma("database_list").find((row) => row.name === "main").file}-wal`;
let wal = null;
const syncWal = () => {
  const started = performance.now();
  wal ??= openSync(walPath, "r");
  fdatasyncSync(wal);
  return performance.now() - started;
};
sqlite.pragma("foreign_keys = ON");
// The log is copied back by a background checkpoint (lib/db/sqlite-checkpoints.mjs), not after this thread's commits.
sqlite.pragma(`wal_autocheckpoint = ${WAL_BACKSTOP_PAGES}`);

// Each step is one table's rows for one statement (built by the main thread, values already in the forms Prisma's
// SQLite adapter stores); statements are prepared once and kept.
const statements = new Map();
const prepared = (sql) => {
  let statement = statements.get(sql);
  if (!statement) statements.set(sql, (statement = sqlite.prepare(sql)));
  return statement;
};

// Automatic bulk, counted in the batch's transaction before its rows: each send adds its destinations to its
// text's second and sums its window; a send over the threshold has its cells patched (messages bulk, the queued
// SDR's details, the idempotency record's answer). The window is kept in memory (lib/db/same-text-window.mjs), from
// the append-only log every send writer of the file appends to: the batch first folds in the rows committed since it
// last read (its own, and other processes'), then appends its own counts.
// Prepared when first used: a file without the log (an older schema) fails its batches, not this thread.
const LOG_TAIL = `SELECT "id", "accountId", "textHash", "second", "count" FROM "SameTextLog" WHERE "id" > ? ORDER BY "id"`;
const LOG_ADD = `INSERT INTO "SameTextLog" ("accountId", "textHash", "second", "count") VALUES (?, ?, ?, ?)`;
const LOG_PRUNE = `DELETE FROM "SameTextLog" WHERE "second" < ?`;
const counted = new SameTextWindow();
let logRead = 0;
const foldLog = () => {
  for (const row of prepared(LOG_TAIL).iterate(logRead)) {
    counted.add(row.accountId, row.textHash, Number(row.second), row.count);
    logRead = row.id;
  }
};
// Most of the log at once, outside any write transaction (about a second for a million rows); each batch then reads
// only what is new. Should this fail (the file busy, or not migrated yet), the first batch reads it all instead.
try {
  foldLog();
} catch {
  // read again, in the first batch's transaction
}

// When the batch's transaction began: how long it held the write lock is sent back with the answer.
let began = 0;
const writeAll = sqlite.transaction((message) => {
  began = performance.now();
  const { steps, sameText = [], pruneBefore = null, threshold } = message;
  foldLog();
  if (pruneBefore !== null) {
    prepared(LOG_PRUNE).run(pruneBefore);
    counted.prune(pruneBefore);
  }
  const bulk = [];
  // This batch's counts: summed with the window's, and appended to the log once per text and second.
  const batch = new SameTextWindow();
  const appended = new Map();
  for (const [index, c] of sameText.entries()) {
    batch.add(c.accountId, c.textHash, c.second, c.destinations);
    const key = `${c.accountId} ${c.textHash} ${c.second}`;
    const row = appended.get(key);
    if (row) row[3] += c.destinations;
    else appended.set(key, [c.accountId, c.textHash, c.second, c.destinations]);
    const before = counted.total(c.accountId, c.textHash, c.since, threshold);
    if (before + batch.total(c.accountId, c.textHash, c.since) <= threshold) continue;
    bulk.push(index);
    for (const [table, row, column, value] of c.patches) steps[table].rows[row][column] = value;
  }
  for (const row of appended.values()) prepared(LOG_ADD).run(...row);
  for (const { sql, rows } of steps) {
    const statement = prepared(sql);
    for (const row of rows) statement.run(row);
  }
  return bulk;
});

parentPort.on("message", (message) => {
  if (message.type === "close") {
    if (wal !== null) closeSync(wal);
    sqlite.close();
    parentPort.close();
    return;
  }
  try {
    // Busy at BEGIN IMMEDIATE: nothing was written; the lock holder commits within milliseconds.
    const bulk = whileBusy(() => writeAll.immediate(message));
    const heldMs = performance.now() - began;
    let syncMs;
    try {
      syncMs = syncWal();
    } catch (error) {
      parentPort.postMessage({ id: message.id, fatal: true, path: walPath, message: error.message });
      return;
    }
    parentPort.postMessage({ id: message.id, ok: true, bulk, heldMs, syncMs });
  } catch (error) {
    parentPort.postMessage({ id: message.id, ok: false, code: error.code, message: error.message });
  }
});
