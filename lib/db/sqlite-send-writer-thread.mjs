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

// The text forms Prisma's SQLite adapter writes and reads: ISO 8601 with "+00:00", booleans as 0/1.
const date = (value) =>
  value === null || value === undefined ? null : new Date(value).toISOString().replace("Z", "+00:00");
const flag = (value) => (value ? 1 : 0);

const insertMessage = sqlite.prepare(`INSERT INTO "Message" ("id", "accountId", "direction", "messageType",
  "fromNumber", "toNumber", "body", "media", "numSegments", "encoding", "status", "rejectReason", "conversational",
  "bulk", "optLogic", "optStatus", "referenceId", "userId", "userType", "conversationId", "createdAt", "updatedAt")
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
const insertSdr = sqlite.prepare(`INSERT INTO "Sdr" ("messageId", "accountId", "status", "statusDetails",
  "segmentNumber", "referenceId", "createdAt") VALUES (?, ?, ?, ?, ?, ?, ?)`);
const insertKey = sqlite.prepare(`INSERT INTO "IdempotencyRecord" ("id", "accountId", "key", "requestHash",
  "statusCode", "responseBody", "createdAt") VALUES (?, ?, ?, ?, ?, ?, ?)`);
// With optLogic: when the footer last went to a destination. A row made here has no opt record (status "").
const upsertFooter = sqlite.prepare(`INSERT INTO "OptState" ("accountId", "number", "status", "lastFooterAt")
  VALUES (?, ?, '', ?) ON CONFLICT ("accountId", "number") DO UPDATE SET "lastFooterAt" = excluded."lastFooterAt"`);

const writeAll = sqlite.transaction((writes) => {
  for (const write of writes) {
    for (const m of write.messages) {
      insertMessage.run(
        m.id,
        m.accountId,
        m.direction,
        m.messageType,
        m.fromNumber,
        m.toNumber,
        m.body,
        m.media ?? "[]",
        m.numSegments,
        m.encoding,
        m.status,
        m.rejectReason ?? null,
        flag(m.conversational),
        flag(m.bulk),
        flag(m.optLogic),
        m.optStatus ?? "",
        m.referenceId ?? null,
        m.userId ?? null,
        m.userType ?? null,
        m.conversationId ?? null,
        date(m.createdAt),
        date(m.updatedAt ?? m.createdAt),
      );
    }
    for (const s of write.sdrs) {
      insertSdr.run(
        s.messageId,
        s.accountId,
        s.status,
        s.statusDetails ?? "",
        s.segmentNumber ?? null,
        s.referenceId ?? null,
        date(s.createdAt),
      );
    }
    for (const f of write.optStates ?? []) upsertFooter.run(f.accountId, f.number, date(f.lastFooterAt));
    const k = write.idempotency;
    if (k)
      insertKey.run(
        k.id,
        k.accountId,
        k.key,
        k.requestHash,
        k.statusCode,
        k.responseBody,
        date(k.createdAt ?? new Date()),
      );
  }
});

parentPort.on("message", (message) => {
  if (message.type === "close") {
    sqlite.close();
    parentPort.close();
    return;
  }
  try {
    writeAll.immediate(message.writes);
    parentPort.postMessage({ id: message.id, ok: true });
  } catch (error) {
    parentPort.postMessage({ id: message.id, ok: false, code: error.code, message: error.message });
  }
});
