import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db, disconnectDb } from "../../lib/db/client";

// A portal edit is a transaction that reads, then writes, while the send writer's thread and the body indexer commit
// on connections of their own. On SQLite that must wait its turn, never fail.
describe("SQLite transactions beside other connections", () => {
  const dir = mkdtempSync(join(tmpdir(), "parley-tx-"));
  const file = join(dir, "parley.db");

  beforeAll(async () => {
    process.env.DATABASE_URL = `file:${file}`;
    await db().$queryRawUnsafe("PRAGMA journal_mode = WAL");
    await db().$executeRawUnsafe(`CREATE TABLE "Edit" ("who" TEXT NOT NULL)`);
  });

  afterAll(async () => {
    await disconnectDb();
    rmSync(dir, { recursive: true, force: true });
  });

  it("keeps a read-then-write transaction and another connection's commit made meanwhile", async () => {
    let other: Promise<string> | null = null;
    await db().$transaction(async (tx) => {
      const before = await tx.$queryRawUnsafe<{ n: bigint | number }[]>(`SELECT count(*) AS n FROM "Edit"`);
      expect(Number(before[0]!.n)).toBe(0);
      // Another connection writes while this transaction is open (as the send writer's thread does).
      other = new Promise<string>((resolve, reject) => {
        const worker = new Worker(
          `const { parentPort, workerData } = require("node:worker_threads");
           const Database = require("better-sqlite3");
           const connection = new Database(workerData, { timeout: 10000 });
           parentPort.postMessage("writing");
           connection.prepare('INSERT INTO "Edit" ("who") VALUES (?)').run("writer thread");
           connection.close();
           parentPort.postMessage("done");`,
          { eval: true, workerData: file },
        );
        worker.on("message", (m) => m === "done" && resolve(m));
        worker.on("error", reject);
      });
      await new Promise((resolve) => setTimeout(resolve, 300));
      await tx.$executeRawUnsafe(`INSERT INTO "Edit" ("who") VALUES ('portal edit')`);
    });
    await other;
    const rows = await db().$queryRawUnsafe<{ who: string }[]>(`SELECT "who" FROM "Edit" ORDER BY rowid`);
    expect(rows.map((r) => r.who)).toEqual(["portal edit", "writer thread"]);
  });
});
