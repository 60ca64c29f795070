import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import Database from "better-sqlite3";
import { db, disconnectDb } from "../../lib/db/client";
import { insertRowsSteps, rowChunks } from "../../lib/db/insert-rows";
import { afterCommit, execute, query, writeTransaction } from "../../lib/db/steps";
import { watchWalSyncs } from "../../lib/db/write-lock-watch";

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

  it("runs a write transaction of steps after a Prisma transaction of the same process, without blocking it", async () => {
    await db().$executeRawUnsafe(`DELETE FROM "Edit"`);
    let steps: Promise<number> | null = null;
    await db().$transaction(async (tx) => {
      await tx.$executeRawUnsafe(`INSERT INTO "Edit" ("who") VALUES ('prisma first')`);
      // Waits for the write lock this transaction holds: were it to wait synchronously, this transaction could
      // never go on to commit.
      steps = writeTransaction(function* () {
        yield* execute(`INSERT INTO "Edit" ("who") VALUES (?)`, ["steps"]);
        const rows = yield* query<{ n: bigint | number }>(`SELECT count(*) AS n FROM "Edit"`);
        return Number(rows[0]!.n);
      });
      await new Promise((resolve) => setTimeout(resolve, 200));
      await tx.$executeRawUnsafe(`INSERT INTO "Edit" ("who") VALUES ('prisma second')`);
    });
    expect(await steps).toBe(3);
    const rows = await db().$queryRawUnsafe<{ who: string }[]>(`SELECT "who" FROM "Edit" ORDER BY rowid`);
    expect(rows.map((r) => r.who)).toEqual(["prisma first", "prisma second", "steps"]);
  });

  it("runs after-commit work once the rows are visible to other connections, and none when it rolls back", async () => {
    await db().$executeRawUnsafe(`DELETE FROM "Edit"`);
    const other = new Database(file, { readonly: true });
    const count = () => (other.prepare(`SELECT count(*) AS n FROM "Edit"`).get() as { n: number }).n;
    const seen: number[] = [];
    await writeTransaction(function* () {
      yield* execute(`INSERT INTO "Edit" ("who") VALUES (?)`, ["committed"]);
      yield* afterCommit(() => seen.push(count()));
      yield* execute(`INSERT INTO "Edit" ("who") VALUES (?)`, ["committed too"]);
    });
    expect(seen).toEqual([2]);

    const failing = writeTransaction(function* () {
      yield* execute(`INSERT INTO "Edit" ("who") VALUES (?)`, ["rolled back"]);
      yield* afterCommit(() => seen.push(-1));
      yield* execute(`INSERT INTO "NoSuchTable" ("who") VALUES (?)`, ["x"]);
    });
    await expect(failing).rejects.toThrow(/no such table/);
    expect(seen).toEqual([2]);
    expect(count()).toBe(2);
    // The connection is usable again after the rollback.
    await writeTransaction(function* () {
      yield* execute(`INSERT INTO "Edit" ("who") VALUES (?)`, ["after"]);
    });
    expect(count()).toBe(3);
    other.close();
  });

  it("commits the write transactions asked for together, rolling back only the one that fails", async () => {
    await db().$executeRawUnsafe(`DELETE FROM "Edit"`);
    const other = new Database(file, { readonly: true });
    const who = () =>
      (other.prepare(`SELECT "who" FROM "Edit" ORDER BY rowid`).all() as { who: string }[]).map((r) => r.who);
    const seen: string[] = [];
    const write = (name: string, fail: "no" | "statement" | "body" | "caught") =>
      writeTransaction(function* () {
        yield* execute(`INSERT INTO "Edit" ("who") VALUES (?)`, [`${name} 1`]);
        yield* afterCommit(() => seen.push(`${name}: ${who().length} rows`));
        if (fail === "statement") yield* execute(`INSERT INTO "NoSuchTable" ("who") VALUES (?)`, [name]);
        if (fail === "body") throw new Error(`${name} gave up`);
        if (fail === "caught") {
          // A statement's error reaches the body, which may handle it and go on.
          try {
            yield* execute(`INSERT INTO "NoSuchTable" ("who") VALUES (?)`, [name]);
          } catch {
            yield* execute(`INSERT INTO "Edit" ("who") VALUES (?)`, [`${name} instead`]);
          }
        }
        yield* execute(`INSERT INTO "Edit" ("who") VALUES (?)`, [`${name} 2`]);
        const rows = yield* query<{ n: bigint | number }>(`SELECT count(*) AS n FROM "Edit"`);
        return Number(rows[0]!.n);
      });
    // Asked for in the same turn, as the worker's loops do.
    const results = await Promise.allSettled([
      write("a", "no"),
      write("b", "statement"),
      write("c", "caught"),
      write("d", "body"),
      write("e", "no"),
    ]);
    expect(results.map((r) => (r.status === "fulfilled" ? r.value : String(r.reason)))).toEqual([
      2,
      expect.stringMatching(/no such table/),
      5,
      "Error: d gave up",
      7,
    ]);
    expect(who()).toEqual(["a 1", "a 2", "c 1", "c instead", "c 2", "e 1", "e 2"]);
    // After-commit work of the committed ones only, each once every row is visible to other connections.
    expect(seen).toEqual(["a: 7 rows", "c: 7 rows", "e: 7 rows"]);
    // And alone again afterwards, where a caught statement error reaches the body the same way.
    await expect(write("f", "caught")).resolves.toBe(10);
    other.close();
  });

  it("commits a group that would hold the write lock too long in turns, in order, another connection's write between", async () => {
    await db().$executeRawUnsafe(`DELETE FROM "Edit"`);
    const other = new Database(file, { timeout: 5000 });
    const count = () => Number((other.prepare(`SELECT count(*) AS n FROM "Edit"`).get() as { n: number }).n);
    const seen: string[] = [];
    // Each body holds the lock for 12 ms (more than a group may run before it commits): each is its own transaction.
    const write = (name: string) =>
      writeTransaction(function* () {
        yield* execute(`INSERT INTO "Edit" ("who") VALUES (?)`, [name]);
        const until = performance.now() + 12;
        while (performance.now() < until);
        yield* afterCommit(() => {
          seen.push(`${name}: ${count()} rows`);
          // Between two turns of the group another connection takes the lock.
          if (name === "a") other.prepare(`INSERT INTO "Edit" ("who") VALUES ('other')`).run();
        });
      });
    await Promise.all([write("a"), write("b"), write("c")]);
    expect(seen).toEqual(["a: 1 rows", "b: 3 rows", "c: 4 rows"]);
    const rows = other.prepare(`SELECT "who" FROM "Edit" ORDER BY rowid`).all() as { who: string }[];
    expect(rows.map((r) => r.who)).toEqual(["a", "other", "b", "c"]);
    other.close();
  });

  it("answers a write transaction once the WAL holding its commit is synced, Prisma's writes syncing their own", async () => {
    await db().$executeRawUnsafe(`DELETE FROM "Edit"`);
    // Whatever sync the earlier writes started is over before this one counts them.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const events: string[] = [];
    watchWalSyncs(() => events.push("synced"));
    try {
      const write = (who: string) =>
        writeTransaction(function* () {
          yield* execute(`INSERT INTO "Edit" ("who") VALUES (?)`, [who]);
          yield* afterCommit(() => events.push(`${who} announced`));
        }).then(() => events.push(`${who} answered`));
      await write("alone");
      // Each caller hears of its commit after a sync that began after it, and so does its after-commit work.
      expect(events[0]).toBe("synced");
      expect(events.slice(1).sort()).toEqual(["alone announced", "alone answered"]);
      events.length = 0;
      // Commits made while a sync runs share the one after it.
      await Promise.all([write("first"), new Promise((resolve) => setTimeout(resolve, 1)).then(() => write("second"))]);
      expect(events.filter((e) => e === "synced").length).toBeGreaterThanOrEqual(1);
      expect(events.indexOf("first answered")).toBeGreaterThan(events.indexOf("synced"));
      expect(events.lastIndexOf("synced")).toBeLessThan(events.indexOf("second answered"));
    } finally {
      watchWalSyncs(null);
    }
    // The connection is back to syncing every commit itself: Prisma's writes are answered only after theirs.
    const mode = await db().$queryRawUnsafe<{ synchronous: bigint | number }[]>("PRAGMA synchronous");
    expect(Number(mode[0]!.synchronous)).toBe(2);
    const other = new Database(file, { readonly: true });
    const rows = other.prepare(`SELECT "who" FROM "Edit" ORDER BY rowid`).all() as { who: string }[];
    expect(rows.map((r) => r.who)).toEqual(["alone", "first", "second"]);
    other.close();
  });

  it("inserts any number of rows in statements of a power of two rows each, every row once and in order", async () => {
    expect(rowChunks(100, 4285, true)).toEqual([64, 32, 4]);
    expect(rowChunks(5000, 4285, true)).toEqual([4096, 512, 256, 128, 8]);
    expect(rowChunks(5000, 4285, false)).toEqual([4285, 715]);
    await db().$executeRawUnsafe(`CREATE TABLE "Row" ("n" INTEGER NOT NULL, "label" TEXT, "at" TEXT)`);
    const at = new Date("2026-11-27T12:00:00.000Z");
    for (const count of [1, 100, 37, 4097]) {
      await db().$executeRawUnsafe(`DELETE FROM "Row"`);
      const rows = Array.from({ length: count }, (_, n) => [n, n % 3 === 0 ? null : `row ${n}`, at]);
      await writeTransaction(() =>
        insertRowsSteps(
          "Row",
          [
            ["n", "int"],
            ["label", "text"],
            ["at", "date"],
          ],
          rows,
        ),
      );
      const stored = await db().$queryRawUnsafe<{ n: bigint | number; label: string | null; at: string }[]>(
        `SELECT "n", "label", "at" FROM "Row" ORDER BY rowid`,
      );
      expect(stored.map((r) => Number(r.n))).toEqual(rows.map((r) => r[0]));
      expect(stored.map((r) => r.label)).toEqual(rows.map((r) => r[1]));
      expect(new Set(stored.map((r) => r.at))).toEqual(new Set(["2026-11-27T12:00:00.000+00:00"]));
    }
  });
});
