import { afterAll, expect, it } from "vitest";
import Database from "better-sqlite3";
import { startServer, type RunningServer } from "../helpers/server";
import { createTestAccount, releaseFactories } from "../helpers/factories";
import { seedMessages } from "../helpers/seed-messages";
import { createTestDatabase, testProvider, type TestDatabase } from "../helpers/test-database";
import { db } from "../../lib/db/client";
import { waitUntil } from "../helpers/wait-for";

// SQLite's planner statistics after a bulk load: a server that starts on a database whose messages were never
// analyzed analyzes them at once, on the body index's thread, and makes every connection load them, so that the first
// listings after an import or a restore plan as later ones do. (PostgreSQL's are refreshed by the database upkeep,
// from its own counts of changed rows, which autovacuum may have acted on first: nothing to tell apart there.)

let database: TestDatabase | undefined;
let server: RunningServer | undefined;

afterAll(async () => {
  await releaseFactories();
  await server?.stop();
  await database?.drop();
});

async function messageAnalyzed(): Promise<boolean> {
  const rows = await db().$queryRawUnsafe<{ n: number | bigint }[]>(
    `SELECT count(*) AS n FROM sqlite_stat1 WHERE tbl = 'Message'`,
  );
  return Number(rows[0]!.n) > 0;
}

async function schemaVersion(): Promise<number> {
  const rows = await db().$queryRawUnsafe<{ schema_version: number | bigint }[]>(`PRAGMA schema_version`);
  return Number(rows[0]!.schema_version);
}

it.skipIf(testProvider() !== "sqlite")(
  "analyzes the messages of a bulk load when the server starts",
  async () => {
    database = await createTestDatabase();
    const loading = await startServer({ database });
    try {
      const account = await createTestAccount(loading, { numbers: 2 });
      await seedMessages(account.accountId, account.numbers, 5_000);
    } finally {
      await loading.stop();
    }
    // Whatever the first server's start-up pass found, the statistics of the messages are forgotten (the ANALYZE of
    // another table makes sure sqlite_stat1 exists).
    await db().$executeRawUnsafe(`ANALYZE "Account"`);
    await db().$executeRawUnsafe(`DELETE FROM sqlite_stat1 WHERE tbl = 'Message'`);
    expect(await messageAnalyzed()).toBe(false);
    const version = await schemaVersion();

    server = await startServer({ database });
    await waitUntil("the messages to be analyzed", messageAnalyzed, 20_000, 200);
    expect(await messageAnalyzed()).toBe(true);
    // SQLite loads the statistics with the schema only: the refresh changes the schema's version, so that every
    // connection already open (the server's readers and writers, another process's) loads them on its next statement.
    expect(await schemaVersion()).toBeGreaterThan(version);
  },
  120_000,
);

it.skipIf(testProvider() !== "sqlite")(
  "leaves the schema alone when no statistics changed (an empty table is always due, and stays so)",
  async () => {
    const fresh = await createTestDatabase();
    const file = fresh.url.replace(/^file:/, "");
    const version = () => {
      const connection = new Database(file, { readonly: true, fileMustExist: true });
      try {
        return Number(connection.pragma("schema_version", { simple: true }));
      } finally {
        connection.close();
      }
    };
    try {
      // The first start migrates the database; the body index's tables are still empty after it.
      await (await startServer({ database: fresh })).stop();
      const migrated = version();
      // The refresh runs as the body index's thread starts, before the server says it is ready: a second start that
      // changed the schema for its empty tables would show it at once.
      const again = await startServer({ database: fresh });
      try {
        const until = Date.now() + 3000;
        while (Date.now() < until) {
          expect(version()).toBe(migrated);
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
      } finally {
        await again.stop();
      }
      expect(version()).toBe(migrated);
    } finally {
      await fresh.drop();
    }
  },
  60_000,
);
