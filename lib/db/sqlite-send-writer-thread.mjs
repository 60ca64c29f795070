// The SQLite send writer's thread: commits each batch of the group commit with prepared statements and a durable
// sync, off the main thread, so that the server keeps reading requests (and filling the next batch) meanwhile.
// Plain JavaScript: it runs as a worker thread under tsx and under Next's server alike.
import { parentPort, workerData } from "node:worker_threads";
import Database from "better-sqlite3";

const sqlite = new Database(workerData.file, { timeout: 10_000 });
sqlite.pragma("journal_mode = WAL");
// Durable: the commit is on disk before any request of the batch is answered.
sqlite.pragma("synchronous = FULL");
sqlite.pragma("foreign_keys = ON");

// Each step is one table's rows for one statement (built by the main thread, values already in the forms Prisma's
// SQLite adapter stores); statements are prepared once and kept.
const statements = new Map();
const prepared = (sql) => {
  let statement = statements.get(sql);
  if (!statement) statements.set(sql, (statement = sqlite.prepare(sql)));
  return statement;
};

const writeAll = sqlite.transaction((steps) => {
  for (const { sql, rows } of steps) {
    const statement = prepared(sql);
    for (const row of rows) statement.run(row);
  }
});

parentPort.on("message", (message) => {
  if (message.type === "close") {
    sqlite.close();
    parentPort.close();
    return;
  }
  try {
    writeAll.immediate(message.steps);
    parentPort.postMessage({ id: message.id, ok: true });
  } catch (error) {
    parentPort.postMessage({ id: message.id, ok: false, code: error.code, message: error.message });
  }
});
