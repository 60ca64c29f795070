import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../helpers/server";
import { call, createTestAccount, releaseFactories, type TestAccount } from "../helpers/factories";
import { testProvider } from "../helpers/test-database";
import { waitUntil } from "../helpers/wait-for";

// SQLite's write-ahead log is copied back into the database file by the server's background thread, a moment after
// the writes, however few: not by the connection that commits (the send writer), and not only once it has grown to
// a thousand pages (lib/db/sqlite-checkpoints.mjs).

describe.runIf(testProvider() === "sqlite")("SQLite's write-ahead log", () => {
  let server: RunningServer;
  let account: TestAccount;

  beforeAll(async () => {
    server = await startServer({ env: { PARLEY_WORKER: "false" } });
    account = await createTestAccount(server, { numbers: 1 });
  });

  afterAll(async () => {
    await releaseFactories();
    await server?.stop();
  });

  it("is copied back into the database file soon after a few sends", async () => {
    for (let i = 0; i < 20; i++) {
      const res = await call(server, "POST", "/v3/messages", {
        headers: account.headers,
        body: { accountId: account.accountId, from: account.numbers[0], to: `1415555${String(1000 + i)}`, body: "Hi" },
      });
      expect(res.status, res.text).toBe(200);
    }
    const sqlite = new Database(new URL(server.database.url.replace(/^file:/, "file://")).pathname);
    try {
      // NOOP: what the log holds and how much of it is in the file already, without copying anything itself.
      const state = () => (sqlite.pragma("wal_checkpoint(NOOP)") as { log: number; checkpointed: number }[])[0]!;
      expect(state().log).toBeGreaterThan(0);
      await waitUntil(
        "the log copied back",
        () => {
          const { log, checkpointed } = state();
          return checkpointed === log || null;
        },
        5_000,
      );
    } finally {
      sqlite.close();
    }
  });
});
