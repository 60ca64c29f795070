// A SQLite reader thread for listings: a read-only connection of its own, so that a query that reads a large part of
// a big table runs beside the server's event loop instead of on it (better-sqlite3 is synchronous), and a deadline
// the query itself checks. Plain JavaScript: it runs as a worker thread under tsx and under Next's server alike.
import { parentPort, workerData } from "node:worker_threads";
import Database from "better-sqlite3";

const sqlite = new Database(workerData.file, { readonly: true, fileMustExist: true, timeout: 10_000 });
sqlite.pragma("query_only = ON");
// Listings read rows all over a large file: keep more pages than SQLite's default 2 MB. The file is not mapped
// (mmap_size 0, SQLite's default): a commit by any other connection makes SQLite empty this connection's cache and
// unmap the file whole before its next read; mapped, every page read after that faults again (13 µs a page on the
// machines measured), where read into the cache it costs a copy into memory the connection has used before (at 1M
// messages, counting the 100,000 failed ones after a send: 21–24 ms mapped against 9–10).
sqlite.pragma("cache_size = -32768");

// The statement timeout: queries that may read many rows call parley_deadline() in their WHERE clause, on some of the
// rows they examine; past the deadline it throws, which aborts the statement (SQLite has no timeout of its own, and
// better-sqlite3 exposes neither sqlite3_interrupt nor a progress handler).
let deadline = Infinity;
const TIMEOUT = "PARLEY_STATEMENT_TIMEOUT";
sqlite.function("parley_deadline", { deterministic: false, directOnly: true }, () => {
  if (Date.now() > deadline) throw new Error(TIMEOUT);
  return 1;
});

// The body filter's exact test: a case-insensitive substring, folded character by character as lib/messaging does
// (SQLite's LIKE folds ASCII only and treats % and _ as wildcards).
const fold = (text) =>
  Array.from(text, (char) => {
    const lower = char.toLowerCase();
    return Array.from(lower).length === 1 ? lower : char;
  }).join("");
// The whole string's toLowerCase() is that folding, natively, except where a character's lower case is longer (İ, the
// only one: the lowered text is then longer) or a capital sigma ends a word (ς, not σ): most bodies take the native
// way, a quarter of the call's cost.
const folded = (text) => {
  const lower = text.toLowerCase();
  return lower.length === text.length && !text.includes("Σ") ? lower : fold(text);
};
sqlite.function("parley_contains", { deterministic: true, directOnly: true }, (text, needle) =>
  typeof text === "string" && folded(text).includes(needle) ? 1 : 0,
);

const statements = new Map();
const prepared = (sql) => {
  let statement = statements.get(sql);
  if (!statement) {
    if (statements.size > 500) statements.clear();
    statements.set(sql, (statement = sqlite.prepare(sql)));
  }
  return statement;
};

parentPort.on("message", (message) => {
  if (message.type === "close") {
    sqlite.close();
    process.exit(0);
  }
  const { id, sql, params, timeoutMs } = message;
  deadline = Date.now() + timeoutMs;
  try {
    const statement = prepared(sql);
    const rows = statement.reader ? statement.all(...params) : (statement.run(...params), []);
    parentPort.postMessage({ id, ok: true, rows });
  } catch (error) {
    const timedOut = String(error?.message ?? "").includes(TIMEOUT);
    parentPort.postMessage({ id, ok: false, timedOut, message: String(error?.message ?? error) });
  } finally {
    deadline = Infinity;
  }
});
