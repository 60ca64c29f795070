// The SQLite send writer's thread: commits each batch of the group commit with prepared statements and a durable
// sync, off the main thread, so that the server keeps reading requests (and filling the next batch) meanwhile.
// Plain JavaScript: it runs as a worker thread under tsx and under Next's server alike.
import { performance } from "node:perf_hooks";
import { parentPort, workerData } from "node:worker_threads";
import Database from "better-sqlite3";
import { whileBusy } from "./sqlite-busy.mjs";
import { WAL_BACKSTOP_PAGES } from "./sqlite-checkpoints.mjs";

// No busy timeout: SQLite's own waits for another process's write lock (the delivery worker's) sleep 1, 2, 5 … then
// 25–100 ms at a time, which is what an answer would wait on; this thread tries again every fraction of a
// millisecond instead (whileBusy).
const sqlite = new Database(workerData.file, { timeout: 0 });
sqlite.pragma("journal_mode = WAL");
// Durable: the commit is on disk before any request of the batch is answered.
sqlite.pragma("synchronous = FULL");
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
// text's second and reads the newest buckets of its window (bounded: see lib/throttle/auto-bulk.ts); a send over
// the threshold has its cells patched (messages bulk, the queued SDR's details, the idempotency record's answer).
const ADD_COUNT = `INSERT INTO "SameTextCount" ("accountId", "textHash", "second", "count") VALUES (?, ?, ?, ?)
   ON CONFLICT ("accountId", "textHash", "second") DO UPDATE SET "count" = "count" + excluded."count"`;
const PRUNE_COUNTS = `DELETE FROM "SameTextCount" WHERE "second" < ?`;
const readWindows = new Map();
const readWindow = (rows) => {
  let statement = readWindows.get(rows);
  if (!statement) {
    statement = sqlite
      .prepare(
        `SELECT "count" FROM "SameTextCount" WHERE "accountId" = ? AND "textHash" = ? AND "second" >= ?
         ORDER BY "second" DESC LIMIT ${Number(rows)}`,
      )
      .pluck();
    readWindows.set(rows, statement);
  }
  return statement;
};

// When the batch's transaction began: how long it held the write lock is sent back with the answer.
let began = 0;
const writeAll = sqlite.transaction((message) => {
  began = performance.now();
  const { steps, sameText = [], pruneBefore = null, threshold, windowRows } = message;
  if (pruneBefore !== null) prepared(PRUNE_COUNTS).run(pruneBefore);
  const bulk = [];
  for (const [index, c] of sameText.entries()) {
    prepared(ADD_COUNT).run(c.accountId, c.textHash, c.second, c.destinations);
    let total = 0;
    for (const count of readWindow(windowRows).iterate(c.accountId, c.textHash, c.since)) total += count;
    if (total <= threshold) continue;
    bulk.push(index);
    for (const [table, row, column, value] of c.patches) steps[table].rows[row][column] = value;
  }
  for (const { sql, rows } of steps) {
    const statement = prepared(sql);
    for (const row of rows) statement.run(row);
  }
  return bulk;
});

parentPort.on("message", (message) => {
  if (message.type === "close") {
    sqlite.close();
    parentPort.close();
    return;
  }
  try {
    // Busy at BEGIN IMMEDIATE: nothing was written; the lock holder commits within milliseconds.
    const bulk = whileBusy(() => writeAll.immediate(message));
    parentPort.postMessage({ id: message.id, ok: true, bulk, heldMs: performance.now() - began });
  } catch (error) {
    parentPort.postMessage({ id: message.id, ok: false, code: error.code, message: error.message });
  }
});
