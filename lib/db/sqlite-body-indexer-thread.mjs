// SQLite: fills the body filter's trigram index (MessageBodySearch) in the background, in rowid order up to the
// newest message, so that a send's commit does not pay for it (tokenizing a body costs ~100 µs, as much as the rest
// of the row). Short transactions with pauses between them: the send writer never waits long for the write lock (but
// for the planner's statistics, refreshed here too: below).
// Several processes may run one on the same file: each step reads and moves the mark in its own transaction.
// Plain JavaScript: it runs as a worker thread under tsx and under Next's server alike.
import { setTimeout, clearTimeout } from "node:timers";
import { performance } from "node:perf_hooks";
import { parentPort, workerData } from "node:worker_threads";
import Database from "better-sqlite3";
import { CHECKPOINT_EVERY_MS, WAL_BACKSTOP_PAGES } from "./sqlite-checkpoints.mjs";

const { file, chunk = 250, pauseMs = 20, idleMs = 250 } = workerData;
const sqlite = new Database(file, { timeout: 5_000 });
sqlite.pragma("journal_mode = WAL");
// Derived data: the mark and the rows it covers commit together, and a lost tail is indexed again.
sqlite.pragma("synchronous = NORMAL");
// This thread also copies the write-ahead log back into the database file, for every connection of the file
// (lib/db/sqlite-checkpoints.mjs): a passive checkpoint never takes the write lock, and syncs the log before it
// copies and the file after.
sqlite.pragma(`wal_autocheckpoint = ${WAL_BACKSTOP_PAGES}`);
const checkpoint = sqlite.prepare("PRAGMA wal_checkpoint(PASSIVE)");
let checkpointedAt = 0;

const mark = sqlite.prepare(`SELECT "indexedUpTo" FROM "MessageBodySearchState" WHERE "id" = 1`).pluck();
const next = sqlite.prepare(`SELECT rowid AS r, "id", "body" FROM "Message" WHERE rowid > ? ORDER BY rowid LIMIT ?`);
const add = sqlite.prepare(`INSERT INTO "MessageBodySearch" (rowid, "body") VALUES (?, ?)`);
const move = sqlite.prepare(`UPDATE "MessageBodySearchState" SET "indexedUpTo" = ?, "indexedId" = ? WHERE "id" = 1`);

// When the step's transaction began: how long each held the write lock is reported once a round.
let began = 0;
const step = sqlite.transaction(() => {
  began = performance.now();
  const from = mark.get() ?? 0;
  const rows = next.all(from, chunk);
  for (const row of rows) add.run(row.r, row.body);
  if (rows.length > 0) move.run(rows[rows.length - 1].r, rows[rows.length - 1].id);
  return rows.length;
});

// The message tally (the message_tally migration): the messages above its mark are counted into it, many rows a
// step (a GROUP BY, no row read into JavaScript), with the mark moved in the same transaction.
const TALLY_CHUNK = 20_000;
const tallyMark = sqlite.prepare(`SELECT "talliedUpTo" FROM "MessageTallyState" WHERE "id" = 1`).pluck();
const tallyEnd = sqlite.prepare(
  `SELECT rowid AS r, "id" FROM "Message" WHERE rowid > ? ORDER BY rowid LIMIT 1 OFFSET ${TALLY_CHUNK - 1}`,
);
const newest = sqlite.prepare(`SELECT rowid AS r, "id" FROM "Message" ORDER BY rowid DESC LIMIT 1`);
const count = sqlite.prepare(
  `INSERT INTO "MessageTally" ("accountId", "hour", "direction", "messageType", "status", "n")
   SELECT "accountId", substr("createdAt", 1, 13), "direction", "messageType", "status", count(*) FROM "Message"
   WHERE rowid > ? AND rowid <= ? GROUP BY 1, 2, 3, 4, 5
   ON CONFLICT DO UPDATE SET "n" = "n" + excluded."n"`,
);
const moveTally = sqlite.prepare(`UPDATE "MessageTallyState" SET "talliedUpTo" = ?, "talliedId" = ? WHERE "id" = 1`);
const tally = sqlite.transaction(() => {
  began = performance.now();
  const from = tallyMark.get() ?? 0;
  const end = tallyEnd.get(from) ?? newest.get();
  if (!end || end.r <= from) return 0;
  count.run(from, end.r);
  moveTally.run(end.r, end.id);
  return end.r - from;
});

// Rowids renumbered since the index was built (a VACUUM, a database restored from a VACUUM INTO copy): the message at
// the mark is not the one indexed there. The index is emptied and built again from the first message; meanwhile
// listings read the rows above the mark directly, so results stay exact, only slower.
// The tally's mark is checked the same way: renumbered rowids are counted again from the start.
const renumbered = (state) => {
  if (!state || state.upTo === 0) return false;
  return sqlite.prepare(`SELECT "id" FROM "Message" WHERE rowid = ?`).pluck().get(state.upTo) !== state.id;
};
const verify = sqlite.transaction(() => {
  const state = sqlite.prepare(`SELECT "indexedUpTo" AS upTo, "indexedId" AS id FROM "MessageBodySearchState"`).get();
  if (!renumbered(state)) return false;
  sqlite.prepare(`INSERT INTO "MessageBodySearch" ("MessageBodySearch") VALUES ('delete-all')`).run();
  sqlite.prepare(`UPDATE "MessageBodySearchState" SET "indexedUpTo" = 0, "indexedId" = NULL`).run();
  return true;
});
const verifyTally = sqlite.transaction(() => {
  const state = sqlite.prepare(`SELECT "talliedUpTo" AS upTo, "talliedId" AS id FROM "MessageTallyState"`).get();
  if (!renumbered(state)) return;
  sqlite.prepare(`DELETE FROM "MessageTally"`).run();
  sqlite.prepare(`UPDATE "MessageTallyState" SET "talliedUpTo" = 0, "talliedId" = NULL`).run();
});
try {
  if (verify.immediate()) parentPort.postMessage({ type: "rebuilding" });
  verifyTally.immediate();
} catch (error) {
  parentPort.postMessage({ type: "error", message: String(error?.message ?? error) });
}

// The planner's statistics, at start-up and then checked every minute (so refreshed within a minute of a bulk load):
// `PRAGMA optimize` with "check every table" runs ANALYZE, under SQLite's own time bound, on each table never analyzed
// or grown or shrunk a lot since (0x10000 every table, 0x10 the time bound, 0x2 run them, 0x1 only say which would
// run). Here rather than on the server's event loop, which an ANALYZE after a bulk load held for a second at 1M
// messages. The check and the refresh are one write transaction (the check takes the write lock already), its hold
// reported with the index's steps. SQLite loads the statistics only with the schema (or on the connection that ran
// ANALYZE): a view created and dropped in the same transaction changes the schema's version, so that every
// connection of the file, in every process (the listing readers, the send writer, Prisma's, the delivery worker's),
// loads the new ones on its next statement. An empty table counts as due for ever (ANALYZE writes no statistics for
// it, and SQLite then assumes a million rows): due tables that are all empty change nothing, and the schema is left
// alone. A refresh that fails (the lock busy past the timeout) is tried again a few seconds later.
const STATISTICS_EVERY_MS = 60_000;
const STATISTICS_RETRY_MS = 5_000;
let statisticsAt = 0;
// What `PRAGMA optimize` says it would run: `ANALYZE "main"."Message"`.
const ANALYZE_TABLE = /^ANALYZE "main"\."((?:[^"]|"")+)"$/;
const holdsRows = (statement) => {
  const table = ANALYZE_TABLE.exec(statement);
  if (!table) return true;
  return sqlite.prepare(`SELECT EXISTS (SELECT 1 FROM "main"."${table[1]}")`).pluck().get() === 1;
};
const refreshStatistics = sqlite.transaction(() => {
  began = performance.now();
  const due = sqlite
    .pragma("optimize = 0x10013")
    .map((row) => String(Object.values(row)[0] ?? ""))
    .filter((statement) => statement !== "" && holdsRows(statement));
  if (due.length === 0) return due;
  sqlite.pragma("optimize = 0x10012");
  sqlite.exec(`CREATE VIEW "ParleyStatisticsReload" AS SELECT 1; DROP VIEW "ParleyStatisticsReload"`);
  return due;
});

let timer = null;
let stopped = false;
function loop() {
  timer = null;
  if (stopped) return;
  let indexed = 0;
  let tallied = 0;
  try {
    // BEGIN IMMEDIATE: take the write lock before reading the mark, so two indexers never index the same rows.
    const held = [];
    indexed = step.immediate();
    held.push(performance.now() - began);
    tallied = tally.immediate();
    held.push(performance.now() - began);
    parentPort.postMessage({ type: "held", ms: held });
  } catch (error) {
    parentPort.postMessage({ type: "error", message: String(error?.message ?? error) });
  }
  if (Date.now() - checkpointedAt >= CHECKPOINT_EVERY_MS) {
    checkpointedAt = Date.now();
    try {
      checkpoint.get();
    } catch (error) {
      parentPort.postMessage({ type: "error", message: `checkpoint: ${String(error?.message ?? error)}` });
    }
  }
  if (Date.now() >= statisticsAt) {
    try {
      const analyzed = refreshStatistics.immediate();
      parentPort.postMessage({ type: "held", ms: [performance.now() - began] });
      statisticsAt = Date.now() + STATISTICS_EVERY_MS;
      if (analyzed.length > 0) parentPort.postMessage({ type: "analyzed", tables: analyzed });
    } catch (error) {
      statisticsAt = Date.now() + STATISTICS_RETRY_MS;
      parentPort.postMessage({ type: "error", message: `statistics: ${String(error?.message ?? error)}` });
    }
  }
  if (indexed > 0) parentPort.postMessage({ type: "indexed", rows: indexed });
  timer = setTimeout(loop, indexed === chunk || tallied >= TALLY_CHUNK ? pauseMs : idleMs);
}
loop();

parentPort.on("message", (message) => {
  if (message.type !== "close") return;
  stopped = true;
  if (timer) clearTimeout(timer);
  sqlite.close();
  process.exit(0);
});
