import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../helpers/server";
import { call, createTestAccount, releaseFactories, type TestAccount } from "../helpers/factories";
import { statuses, waitUntil, type SdrRecord } from "../helpers/wait-for";
import { killAllWorkers, startWorker } from "../helpers/worker-process";
import { testProvider } from "../helpers/test-database";
import { db } from "../../lib/db/client";

// The carrier simulator behaves like an SMSC that keeps the receipts it owes: a worker (`npm run worker`, a real
// process) killed with SIGKILL after its submits and before their receipts are due loses none of them; the next
// worker delivers each, once, and the messages reach their final status with the whole SDR trail.
let server: RunningServer;

// Receipts are due 8 s after each submit, long after all the messages are out (about 2 s at one part a second
// per number); a dead worker's claim on them runs out after its lease (5 s, the shortest allowed).
const RECEIPT_DELAY_MS = 8_000;
const WORKER_ENV = {
  WORKER_POLL_MS: "50",
  SIMULATOR_RECEIPT_DELAY_MS: String(RECEIPT_DELAY_MS),
  WORKER_LEASE_SECONDS: "5",
};

beforeAll(async () => {
  server = await startServer({ env: { PARLEY_WORKER: "false" } });
});

// Each scenario's workers end with it, so that none of them takes the next scenario's work.
afterEach(killAllWorkers);

afterAll(async () => {
  await releaseFactories();
  await server?.stop();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Sent {
  id: string;
  to: string;
  numSegments: number;
}

async function send(account: TestAccount, from: string, to: string, body: string): Promise<Sent> {
  const res = await call(server, "POST", "/v3/messages", {
    headers: account.headers,
    body: { accountId: account.accountId, from, to, body },
  });
  expect(res.status, res.text).toBe(200);
  const [info] = res.json.data.messageInfo as { messageId: string; numSegments: number }[];
  return { id: info!.messageId, to, numSegments: info!.numSegments };
}

/** Each phone gets one message from each of the account's numbers; the last phone a two-segment text. */
async function sendSome(account: TestAccount, phones: string[]): Promise<Sent[]> {
  const sends = phones.flatMap((to, p) =>
    account.numbers.map((from, n) =>
      send(account, from, to, p === phones.length - 1 ? `long ${n} ${"x".repeat(190)}` : `short ${p} ${n}`),
    ),
  );
  return Promise.all(sends);
}

async function listing(account: TestAccount): Promise<Map<string, string>> {
  const res = await call(server, "GET", `/v3/messages?accountId=${account.accountId}&direction=outbound&count=100`, {
    headers: account.headers,
  });
  expect(res.status).toBe(200);
  return new Map(
    (res.json.data.results as { messageId: string; status: string }[]).map((m) => [m.messageId, m.status]),
  );
}

async function waitForStatuses(
  account: TestAccount,
  sent: Sent[],
  wanted: (status: string) => boolean,
  what: string,
  timeoutMs: number,
): Promise<Map<string, string>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const seen = await listing(account);
    if (sent.every((m) => wanted(seen.get(m.id) ?? ""))) return seen;
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}: ${JSON.stringify(Object.fromEntries(seen))}`);
    await sleep(100);
  }
}

async function sdrsOf(account: TestAccount, messageId: string): Promise<SdrRecord[]> {
  const res = await call(server, "GET", `/v3/sdrs/${account.accountId}/${messageId}`, { headers: account.headers });
  expect(res.status).toBe(200);
  return res.json.data.results as SdrRecord[];
}

/** One submit and one receipt per segment, the receipt's outcome the one the destination asks for. */
async function expectCompleteTrail(account: TestAccount, message: Sent, outcome: "delivered" | "undelivered") {
  const records = await sdrsOf(account, message.id);
  const segments = Array.from({ length: message.numSegments }, (_, i) => i + 1);
  const of = (status: string) =>
    records
      .filter((r) => r.status === status)
      .map((r) => r.segmentNumber)
      .sort();
  expect(statuses(records).slice(0, 2), message.id).toEqual(["accepted", "queued"]);
  expect(of("sending"), `sending of ${message.id}`).toEqual(segments);
  expect(of("message_sent"), `message_sent of ${message.id}`).toEqual(segments);
  expect(of(outcome), `${outcome} of ${message.id}`).toEqual(segments);
  expect(of("dlr_received"), `dlr_received of ${message.id}`).toEqual(segments);
  expect(records.filter((r) => r.status === "wait_dlr")).toHaveLength(1);
  expect(records).toHaveLength(3 + 4 * message.numSegments);
  const stat = outcome === "delivered" ? "stat:DELIVRD err:000" : "stat:UNDELIV err:001";
  for (const receipt of records.filter((r) => r.status === outcome)) expect(receipt.statusDetails).toContain(stat);
}

describe(`the carrier simulator's receipts on ${testProvider()}`, () => {
  it(
    "survive a worker killed with SIGKILL before they are due: the next worker delivers each once",
    { timeout: 90_000 },
    async () => {
      const account = await createTestAccount(server, { numbers: 3, rateLimitPerSecond: 100 });
      const first = await startWorker(server.database.url, WORKER_ENV);
      // …0000 is undelivered by the simulator: the owed outcome survives too, not only the fact of a receipt.
      const sent = await sendSome(account, ["14155550000", "14155550124"]);
      const outcomeOf = (m: Sent) => (m.to.endsWith("0000") ? "undelivered" : "delivered");
      expect(sent.filter((m) => m.numSegments === 2)).toHaveLength(3);
      // Every part out and recorded, no receipt due yet (the first is due 8 s after its submit).
      await waitForStatuses(account, sent, (s) => s === "sent", "every message to be sent", 15_000);
      first.signalGroup("SIGKILL");
      expect((await first.exited).signal).toBe("SIGKILL");
      const atKill = await listing(account);
      expect([...atKill.values()].every((s) => s === "sent")).toBe(true);

      // Past every due time, nothing is delivered while no worker runs: the receipts are owed, not lost.
      await sleep(RECEIPT_DELAY_MS + 500);
      expect([...(await listing(account)).values()].every((s) => s === "sent")).toBe(true);

      const second = await startWorker(server.database.url, WORKER_ENV);
      await waitForStatuses(account, sent, (s) => s === "delivered" || s === "undelivered", "final statuses", 30_000);
      const final = await listing(account);
      for (const message of sent) {
        expect(final.get(message.id), message.id).toBe(outcomeOf(message));
        await expectCompleteTrail(account, message, outcomeOf(message));
      }
      // Nothing is owed any more (a receipt's row is deleted, in a batch, after its delivery is recorded), and no
      // receipt comes twice: a while later the trails are unchanged.
      await waitUntil("no owed receipt to be left", async () => (await db().simulatorReceipt.count()) === 0, 10_000);
      await sleep(1_000);
      for (const message of sent) await expectCompleteTrail(account, message, outcomeOf(message));
      expect(second.errors()).toEqual([]);
      await second.stop();
    },
  );

  it(
    "are handed over at once by a worker stopped with SIGTERM: the next delivers them when due, without waiting for a lease",
    { timeout: 60_000 },
    async () => {
      const account = await createTestAccount(server, { numbers: 2, rateLimitPerSecond: 100 });
      // A 60 s lease: a claim that was not given back would hold the receipts past this test's time limit.
      const env = { ...WORKER_ENV, WORKER_LEASE_SECONDS: "60" };
      const first = await startWorker(server.database.url, env);
      const sent = await sendSome(account, ["14155550125", "14155550126"]);
      await waitForStatuses(account, sent, (s) => s === "sent", "every message to be sent", 15_000);
      first.signalWorker("SIGTERM");
      expect((await first.exited).code).toBe(0);
      expect([...(await listing(account)).values()].every((s) => s === "sent")).toBe(true);

      const second = await startWorker(server.database.url, env);
      // Due 8 s after their submits: well before the first worker's 60 s claim would have run out.
      await waitForStatuses(account, sent, (s) => s === "delivered", "every message to be delivered", 20_000);
      for (const message of sent) await expectCompleteTrail(account, message, "delivered");
      // A receipt's row is deleted (in a batch) after its delivery is recorded: none may stay behind.
      await waitUntil("no owed receipt to be left", async () => (await db().simulatorReceipt.count()) === 0, 10_000);
      expect([...first.errors(), ...second.errors()]).toEqual([]);
      await second.stop();
    },
  );
});
