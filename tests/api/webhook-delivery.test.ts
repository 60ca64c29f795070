import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../helpers/server";
import { createTestDatabase, type TestDatabase } from "../helpers/test-database";
import { call, createTestAccount, randomNumber, releaseFactories, type TestAccount } from "../helpers/factories";
import { has, waitForSdrs } from "../helpers/wait-for";
import { killAllWorkers, startWorker } from "../helpers/worker-process";
import { startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver";

// Webhooks from worker processes (`npm run worker`) beside a server that runs none: a worker killed with SIGKILL
// while its POST is in flight loses nothing (its lease expires and another worker sends the event again), and
// two workers share the outbox without sending an event twice.
let database: TestDatabase;
let server: RunningServer;
let account: TestAccount;
let receiver: WebhookReceiver;

const WORKER_ENV = {
  WORKER_POLL_MS: "50",
  SIMULATOR_RECEIPT_DELAY_MS: "100",
  WEBHOOK_ALLOW_PRIVATE: "true",
  WEBHOOK_POLL_MS: "50",
  WEBHOOK_TIMEOUT_SECONDS: "1",
  WEBHOOK_RETRY_SECONDS: "0.5",
};

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  database = await createTestDatabase();
  server = await startServer({ database, env: { PARLEY_WORKER: "false", WEBHOOK_ALLOW_PRIVATE: "true" } });
  account = await createTestAccount(server, { numbers: 4, rateLimitPerSecond: 50 });
  const res = await call(server, "PUT", `/api/admin/accounts/${account.accountId}/webhook`, {
    headers: account.headers,
    body: { url: receiver.url },
  });
  expect(res.status).toBe(200);
});

afterAll(async () => {
  await killAllWorkers();
  await releaseFactories();
  await server?.stop();
  await database?.drop();
  await receiver?.close();
});

async function send(from: string): Promise<string> {
  const res = await call(server, "POST", "/v3/messages", {
    headers: account.headers,
    body: { accountId: account.accountId, from, to: randomNumber(), body: "Your code is 4711" },
  });
  expect(res.status).toBe(200);
  return res.json.data.messageInfo[0].messageId as string;
}

describe("worker processes", () => {
  it("an event whose worker is killed mid-POST is still delivered, by another worker", async () => {
    let hung = false;
    receiver.respond = () => {
      if (hung) return { status: 200 };
      hung = true;
      return { hang: true };
    };
    const doomed = await startWorker(database.url, {
      ...WORKER_ENV,
      WEBHOOK_LEASE_SECONDS: "2",
      WORKER_LEASE_SECONDS: "5",
    });
    const messageId = await send(account.numbers[0]!);
    const first = await receiver.waitFor((r) => r.json.messageId === messageId);
    doomed.signalGroup("SIGKILL");
    expect((await doomed.exited).signal).toBe("SIGKILL");
    const survivor = await startWorker(database.url, { ...WORKER_ENV, WEBHOOK_LEASE_SECONDS: "5" });
    const again = await receiver.waitFor((r) => r !== first && r.json.messageId === messageId);
    expect(again.headers["webhook-id"]).toBe(first.headers["webhook-id"]);
    expect(again.body).toBe(first.body);
    const records = await waitForSdrs(server, account, messageId, has("status_sent"));
    expect(records.filter((r) => r.status === "status_sent")).toHaveLength(1);
    expect(survivor.errors()).toEqual([]);
  });

  it("two workers share the outbox: every event arrives exactly once", async () => {
    receiver.respond = () => ({ status: 200 });
    await startWorker(database.url, { ...WORKER_ENV, WEBHOOK_LEASE_SECONDS: "5" });
    const sent: string[] = [];
    for (let i = 0; i < 8; i++) sent.push(await send(account.numbers[1 + (i % 3)]!)); // numbers[0] may still be leased to the killed worker
    for (const messageId of sent) await waitForSdrs(server, account, messageId, has("status_sent"));
    for (const messageId of sent) {
      expect(receiver.requests.filter((r) => r.json.messageId === messageId)).toHaveLength(1);
    }
  });
});
