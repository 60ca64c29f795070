import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../helpers/server";
import { call, createTestAccount, releaseFactories, type TestAccount } from "../helpers/factories";
import { testProvider } from "../helpers/test-database";
import { db } from "../../lib/db/client";
import { bucketOf, sameTextHash } from "../../lib/throttle/auto-bulk";

// The decision: the same text from one account to more than 20 destinations within 10 minutes is bulk, counted
// for the whole deployment (every server of one database, or of one Redis).
let server: RunningServer;
let account: TestAccount;
let other: TestAccount;
let run = 0;

beforeAll(async () => {
  server = await startServer();
  account = await createTestAccount(server, { numbers: 1 });
  other = await createTestAccount(server, { numbers: 1 });
});

afterAll(async () => {
  await releaseFactories();
  await server?.stop();
});

const destination = (i: number) => `1212555${String(1000 + i)}`;
const text = (name: string) => `${name} ${++run} ${Date.now()}`;

function send(
  on: RunningServer,
  who: TestAccount,
  body: string,
  to: string | string[],
  headers: Record<string, string> = {},
) {
  return call(on, "POST", "/v3/messages", {
    headers: { ...who.headers, ...headers },
    body: {
      accountId: who.accountId,
      from: who.numbers[0],
      body,
      bulk: false,
      ...(Array.isArray(to) ? { toArray: to } : { to }),
    },
  });
}

// Counts as earlier sends leave them: on PostgreSQL a row per account, text and second; on SQLite the log every
// send writer appends to (and reads what the others appended from).
async function storeCounts(rows: { accountId: string; textHash: string; second: number; count: number }[]) {
  if (testProvider() === "postgresql") {
    await db().sameTextCount.createMany({ data: rows.map((r) => ({ ...r, second: BigInt(r.second) })) });
    return;
  }
  for (const r of rows) {
    await db().$executeRawUnsafe(
      `INSERT INTO "SameTextLog" ("accountId", "textHash", "second", "count") VALUES (?, ?, ?, ?)`,
      r.accountId,
      r.textHash,
      r.second,
      r.count,
    );
  }
}

async function storedCounts(textHash: string): Promise<number> {
  const table = testProvider() === "postgresql" ? "SameTextCount" : "SameTextLog";
  const [row] = await db().$queryRawUnsafe<{ n: number | bigint }[]>(
    `SELECT count(*) AS n FROM "${table}" WHERE "textHash" = ${testProvider() === "postgresql" ? "$1" : "?"}`,
    textHash,
  );
  return Number(row!.n);
}

async function queuedDetails(on: RunningServer, who: TestAccount, messageId: string): Promise<string> {
  const sdrs = await call(on, "GET", `/v3/sdrs/${who.accountId}/${messageId}`, { headers: who.headers });
  return sdrs.json.data.results.find((r: { status: string }) => r.status === "queued").statusDetails;
}

describe("automatic bulk", () => {
  it("leaves the 20th destination of a text ad hoc and makes the 21st bulk", async () => {
    const body = text("Flash sale");
    const first = await send(
      server,
      account,
      body,
      Array.from({ length: 19 }, (_, i) => destination(i)),
    );
    expect(first.json.data.bulk).toBe(false);
    const twentieth = await send(server, account, body, destination(19));
    expect(twentieth.json.data.bulk).toBe(false);
    expect(await queuedDetails(server, account, twentieth.json.data.messageInfo[0].messageId)).toBe("");
    const twentyFirst = await send(server, account, body, destination(20));
    expect(twentyFirst.json.data.bulk).toBe(true);
    const id = twentyFirst.json.data.messageInfo[0].messageId;
    expect(await queuedDetails(server, account, id)).toMatch(/more than 20 destinations within 10 minutes/);
    const listed = await call(server, "GET", `/v3/messages?accountId=${account.accountId}&to=${destination(20)}`, {
      headers: account.headers,
    });
    expect(listed.json.data.results).toHaveLength(1);
  });

  it("counts accounts and texts apart", async () => {
    const body = text("Weekend offer");
    expect(
      (
        await send(
          server,
          account,
          body,
          Array.from({ length: 21 }, (_, i) => destination(i)),
        )
      ).json.data.bulk,
    ).toBe(true);
    expect((await send(server, account, body, destination(30))).json.data.bulk).toBe(true);
    // Another account, same text: its own count.
    expect((await send(server, other, body, destination(30))).json.data.bulk).toBe(false);
    // The same account, another text.
    expect((await send(server, account, `${body}!`, destination(30))).json.data.bulk).toBe(false);
  });

  it("forgets what was sent more than 10 minutes ago and counts what was sent within them", async () => {
    const now = bucketOf(Date.now());
    const old = text("Old news");
    const recent = text("Recent news");
    // 20 destinations 600 s ago (outside the window) and 20 sent 598 s ago (inside it), as earlier sends left them.
    await storeCounts([
      { accountId: account.accountId, textHash: sameTextHash(old, []), second: now - 600, count: 20 },
      { accountId: account.accountId, textHash: sameTextHash(recent, []), second: now - 598, count: 20 },
    ]);
    expect((await send(server, account, old, destination(1))).json.data.bulk).toBe(false);
    expect((await send(server, account, recent, destination(1))).json.data.bulk).toBe(true);
  });

  it("stores the bulk answer for an Idempotency-Key", async () => {
    const body = text("Reminder");
    await send(
      server,
      account,
      body,
      Array.from({ length: 20 }, (_, i) => destination(i)),
    );
    const key = { "idempotency-key": `k${run}${Date.now()}` };
    const first = await send(server, account, body, destination(40), key);
    expect(first.json.data.bulk).toBe(true);
    const again = await send(server, account, body, destination(40), key);
    expect(again.json).toEqual(first.json);
  });

  it("gives concurrent sends of one text exactly the destinations over 20 as bulk", async () => {
    const body = text("Concurrent");
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) => send(server, account, body, destination(100 + i))),
    );
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(answers.filter((a) => a.json.data.bulk === true)).toHaveLength(10);
  });
});

describe("automatic bulk across two servers of one database", () => {
  let second: RunningServer;
  beforeAll(async () => {
    second = await startServer({ database: server.database });
  });
  afterAll(async () => {
    await second?.stop();
  });

  it("shares the threshold: 20 destinations over both servers stay ad hoc, the 21st is bulk on either", async () => {
    const body = text("Two servers");
    for (let i = 0; i < 20; i++) {
      const res = await send(i % 2 === 0 ? server : second, account, body, destination(i));
      expect(res.json.data.bulk).toBe(false);
    }
    expect((await send(second, account, body, destination(20))).json.data.bulk).toBe(true);
    expect((await send(server, account, body, destination(21))).json.data.bulk).toBe(true);
  });

  it("counts, on a server started later, what the others sent before it", async () => {
    const body = text("Before the restart");
    const first = await send(
      server,
      account,
      body,
      Array.from({ length: 20 }, (_, i) => destination(300 + i)),
    );
    expect(first.json.data.bulk).toBe(false);
    // Counts older than the window, as a send of 11 minutes ago left them: the later server's first commit deletes
    // them (the others' every 10 s).
    const stale = sameTextHash(text("Long ago"), []);
    await storeCounts([
      { accountId: account.accountId, textHash: stale, second: bucketOf(Date.now()) - 660, count: 5 },
    ]);
    expect(await storedCounts(stale)).toBe(1);
    const later = await startServer({ database: server.database });
    try {
      expect((await send(later, account, body, destination(320))).json.data.bulk).toBe(true);
      expect((await send(later, other, body, destination(320))).json.data.bulk).toBe(false);
      expect(await storedCounts(stale)).toBe(0);
    } finally {
      await later.stop();
    }
  });

  it("counts concurrent sends on both servers exactly", async () => {
    const body = text("Two servers at once");
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) => send(i % 2 === 0 ? server : second, account, body, destination(200 + i))),
    );
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(answers.filter((a) => a.json.data.bulk === true)).toHaveLength(20);
  });
});

describe.runIf(testProvider() === "sqlite")("automatic bulk in Redis (REDIS_URL)", () => {
  let first: RunningServer;
  let second: RunningServer;
  beforeAll(async () => {
    const env = { REDIS_URL: process.env.PARLEY_TEST_REDIS_URL ?? "redis://127.0.0.1:6379" };
    first = await startServer({ database: server.database, env });
    second = await startServer({ database: server.database, env });
  });
  afterAll(async () => {
    await first?.stop();
    await second?.stop();
  });

  it("shares the threshold between servers through Redis", async () => {
    const body = text("Redis sale");
    expect(
      (
        await send(
          first,
          account,
          body,
          Array.from({ length: 10 }, (_, i) => destination(i)),
        )
      ).json.data.bulk,
    ).toBe(false);
    expect(
      (
        await send(
          second,
          account,
          body,
          Array.from({ length: 10 }, (_, i) => destination(10 + i)),
        )
      ).json.data.bulk,
    ).toBe(false);
    const over = await send(first, account, body, destination(20));
    expect(over.json.data.bulk).toBe(true);
    expect(await queuedDetails(first, account, over.json.data.messageInfo[0].messageId)).toMatch(/more than 20/);
    // Not counted in the database when Redis counts.
    expect(await storedCounts(sameTextHash(body, []))).toBe(0);
    expect((await send(second, other, body, destination(20))).json.data.bulk).toBe(false);
  });
});
