// SQLite: fills the body filter's trigram index (MessageBodySearch) in the background, in rowid order up to the
// newest message, so that a send's commit does not pay for it (tokenizing a body costs ~100 µs, as much as the rest
// of the row). Short transactions with pauses between them: the send writer never waits long for the write lock.
// Several processes may run one on the same file: each step reads and moves the mark in its own transaction.
// Plain JavaScript: it runs as a worker thread under tsx and under Next's server alike.
import { setTimeout, clearTimeout } from "node:timers";
import { parentPort, workerData } from "node:worker_threads";
import Database from "better-sqlite3";

const { file, chunk = 250, pauseMs = 20, idleMs = 250 } = workerData;
const sqlite = new Database(file, { timeout: 5_000 });
sqlite.pragma("journal_mode = WAL");
// Derived data: the mark and the rows it covers commit together, and a lost tail is indexed again.
sqlite.pragma("synchronous = NORMAL");

const mark = sqlite.prepare(`SELECT "indexedUpTo" FROM "MessageBodySearchState" WHERE "id" = 1`).pluck();
const next = sqlite.prepare(`SELECT rowid AS r, "id", "body" FROM "Message" WHERE rowid > ? ORDER BY rowid LIMIT ?`);
const add = sqlite.prepare(`INSERT INTO "MessageBodySearch" (rowid, "body") VALUES (?, ?)`);
const move = sqlite.prepare(`UPDATE "MessageBodySearchState" SET "indexedUpTo" = ?, "indexedId" = ? WHERE "id" = 1`);

const step = sqlite.transaction(() => {
  const from = mark.get() ?? 0;
  const rows = next.all(from, chunk);
  for (const row of rows) add.run(row.r, row.body);
  if (rows.length > 0) move.run(rows[rows.length - 1].r, rows[rows.length - 1].id);
  return rows.length;
});

// Rowids renumbered since the index was built (a VACUUM, a database restored from a VACUUM INTO copy): the message at
// the mark is not the one indexed there. The index is emptied and built again from the first message; meanwhile
// listings read the rows above the mark directly, so results stay exact, only slower.
const verify = sqlite.transaction(() => {
  const state = sqlite.prepare(`SELECT "indexedUpTo" AS upTo, "indexedId" AS id FROM "MessageBodySearchState"`).get();
  if (!state || state.upTo === 0) return false;
  const at = sqlite.prepare(`SELECT "id" FROM "Message" WHERE rowid = ?`).pluck().get(state.upTo);
  if (at === state.id) return false;
  sqlite.prepare(`INSERT INTO "MessageBodySearch" ("MessageBodySearch") VALUES ('delete-all')`).run();
  sqlite.prepare(`UPDATE "MessageBodySearchState" SET "indexedUpTo" = 0, "indexedId" = NULL`).run();
  return true;
});
try {
  if (verify.immediate()) parentPort.postMessage({ type: "rebuilding" });
} catch (error) {
  parentPort.postMessage({ type: "error", message: String(error?.message ?? error) });
}

let timer = null;
let stopped = false;
function loop() {
  timer = null;
  if (stopped) return;
  let indexed = 0;
  try {
    // BEGIN IMMEDIATE: take the write lock before reading the mark, so two indexers never index the same rows.
    indexed = step.immediate();
  } catch (error) {
    parentPort.postMessage({ type: "error", message: String(error?.message ?? error) });
  }
  if (indexed > 0) parentPort.postMessage({ type: "indexed", rows: indexed });
  timer = setTimeout(loop, indexed === chunk ? pauseMs : idleMs);
}
loop();

parentPort.on("message", (message) => {
  if (message.type !== "close") return;
  stopped = true;
  if (timer) clearTimeout(timer);
  sqlite.close();
  process.exit(0);
});
