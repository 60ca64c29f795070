import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../helpers/server";
import { createTestDatabase, testProvider, type TestDatabase } from "../helpers/test-database";
import { call, createTestAccount, randomNumber, releaseFactories, type TestAccount } from "../helpers/factories";
import { killAllWorkers, startWorker, type WorkerProcess } from "../helpers/worker-process";
import { startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver";
import { parsePrometheusText, sampleValue, type MetricFamily } from "../helpers/prometheus-text";

// GET /metrics as Prometheus scrapes it, from a server that runs no worker and a worker on its own
// (`npm run worker`, METRICS_WORKER_PORT): the server counts the sends it accepts and reads the queues from the
// database; the worker counts the parts it submits, the receipts and the webhook attempts it records.
let database: TestDatabase;
let server: RunningServer;
let worker: WorkerProcess;
let workerMetricsUrl: string;
let account: TestAccount;
let receiver: WebhookReceiver;

const TOKEN = "metrics-token-for-the-tests-0123456789";

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  database = await createTestDatabase();
  const [started, spawned] = await Promise.all([
    startServer({ database, env: { PARLEY_WORKER: "false", WEBHOOK_ALLOW_PRIVATE: "true", METRICS_TOKEN: TOKEN } }),
    startWorker(database.url, {
      WORKER_POLL_MS: "50",
      SIMULATOR_RECEIPT_DELAY_MS: "100",
      WEBHOOK_ALLOW_PRIVATE: "true",
      WEBHOOK_POLL_MS: "50",
      WEBHOOK_RETRY_SECONDS: "0.3",
      METRICS_WORKER_PORT: "0",
      HOST: "127.0.0.1",
      TRUST_PROXY: "true",
    }),
  ]);
  server = started;
  worker = spawned;
  const port = /^PARLEY_WORKER_METRICS (\d+)$/m.exec(worker.output())?.[1];
  expect(port, "the worker announces its metrics port").toBeDefined();
  workerMetricsUrl = `http://127.0.0.1:${port}/metrics`;
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

type Families = Map<string, MetricFamily>;

async function scrape(url: string, headers: Record<string, string> = {}): Promise<Families> {
  const response = await fetch(url, { headers });
  const text = await response.text();
  expect(response.status, text).toBe(200);
  expect(response.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
  return parsePrometheusText(text);
}

const scrapeServer = () => scrape(`${server.baseUrl}/metrics`, { authorization: `Bearer ${TOKEN}` });
const scrapeWorker = () => scrape(workerMetricsUrl);

/** Scrapes until `done` holds for what it read (or fails with the last value seen). */
async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let value = await read();
  while (!done(value)) {
    if (Date.now() > deadline) throw new Error(`not reached in ${timeoutMs} ms; last: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
    value = await read();
  }
  return value;
}

async function send(body: Record<string, unknown>): Promise<Record<string, string>[]> {
  const res = await call(server, "POST", "/v3/messages", {
    headers: account.headers,
    body: { accountId: account.accountId, bulk: false, ...body },
  });
  expect(res.status, res.text).toBe(200);
  return res.json.data.messageInfo;
}

describe("GET /metrics", () => {
  it("is the Prometheus text format, with every series of its process and the database's", async () => {
    const families = await scrapeServer();
    const types = Object.fromEntries([...families.values()].map((f) => [f.name, f.type]));
    expect(types).toMatchObject({
      parley_messages_accepted_total: "counter",
      parley_messages_rejected_total: "counter",
      parley_api_rate_limited_total: "counter",
      parley_segments_submitted_total: "counter",
      parley_submit_errors_total: "counter",
      parley_receipts_total: "counter",
      parley_webhook_attempts_total: "counter",
      parley_carrier_connection_state: "gauge",
      parley_carrier_submit_window_in_use: "gauge",
      parley_queue_depth: "gauge",
      parley_queue_oldest_age_seconds: "gauge",
      parley_queued_messages: "gauge",
      parley_queue_numbers: "gauge",
      parley_webhook_backlog: "gauge",
      parley_webhook_dispatch_lag_seconds: "gauge",
      parley_workers: "gauge",
      // Node's and the process's own (prom-client's default metrics).
      nodejs_eventloop_lag_seconds: "gauge",
      nodejs_eventloop_lag_p99_seconds: "gauge",
      process_cpu_seconds_total: "counter",
      process_resident_memory_bytes: "gauge",
      nodejs_heap_size_used_bytes: "gauge",
    });
    for (const family of families.values()) expect(family.help, family.name).not.toBe("");
    // Labelled counters start at 0 for each value they can take.
    expect(sampleValue(families, "parley_messages_rejected_total", { reason: "OptedOut" })).toBe(0);
    expect(sampleValue(families, "parley_webhook_attempts_total", { outcome: "http_error" })).toBe(0);
    // The worker runs in another process: the server sees its carrier link through the heartbeat table.
    expect(sampleValue(families, "parley_workers", { carrier: "simulator", state: "connected" })).toBe(1);
    expect(sampleValue(families, "parley_carrier_connection_state", { carrier: "simulator" })).toBeUndefined();
  });

  it("serves a separate worker's own series on METRICS_WORKER_PORT, without the database's", async () => {
    const families = await scrapeWorker();
    expect(families.get("parley_segments_submitted_total")?.type).toBe("counter");
    expect(families.get("nodejs_eventloop_lag_seconds")?.type).toBe("gauge");
    expect(sampleValue(families, "parley_carrier_connection_state", { carrier: "simulator", state: "connected" })).toBe(
      1,
    );
    expect(sampleValue(families, "parley_carrier_connection_state", { carrier: "simulator", state: "down" })).toBe(0);
    expect(families.has("parley_queue_depth")).toBe(false);
    expect(families.has("parley_workers")).toBe(false);
  });

  it("counts sends, parts submitted, receipts and webhook attempts as they happen", async () => {
    const [server0, worker0] = await Promise.all([scrapeServer(), scrapeWorker()]);
    const delta = (now: Families, before: Families, name: string, labels: Record<string, string> = {}) =>
      (sampleValue(now, name, labels) ?? 0) - (sampleValue(before, name, labels) ?? 0);

    // The first answer to each event (one per part) of the two-part message is a refusal: it is tried again.
    let twoPart = "";
    const refuse = new Set<string>();
    receiver.respond = (request) => {
      const key = `${request.json.messageId}:${request.json.segmentNumber ?? ""}:${request.json.status ?? ""}`;
      if (request.json.messageId !== twoPart || refuse.has(key)) return { status: 200 };
      refuse.add(key);
      return { status: 503 };
    };
    const destination = randomNumber();
    const mixed = await send({
      from: account.numbers[0],
      toArray: [destination, "12345", destination],
      body: "Your code is 4711",
    });
    expect(mixed.map((m) => m.reason)).toEqual(["", "InvalidDestination", "DuplicateDestination"]);
    twoPart = (await send({ from: account.numbers[1], to: randomNumber(), body: "x".repeat(200) }))[0]!.messageId!;
    await send({ from: account.numbers[2], to: randomNumber(), body: "See you at 5" });

    const server1 = await scrapeServer();
    expect(delta(server1, server0, "parley_messages_accepted_total")).toBe(3);
    expect(delta(server1, server0, "parley_messages_rejected_total", { reason: "InvalidDestination" })).toBe(1);
    expect(delta(server1, server0, "parley_messages_rejected_total", { reason: "DuplicateDestination" })).toBe(1);
    expect(delta(server1, server0, "parley_messages_rejected_total", { reason: "FromNotOwned" })).toBe(0);

    // Four parts (1 + 2 + 1) leave and are delivered by the simulator.
    const worker1 = await eventually(
      scrapeWorker,
      (f) => delta(f, worker0, "parley_receipts_total", { status: "delivered" }) >= 4,
    );
    expect(delta(worker1, worker0, "parley_segments_submitted_total")).toBe(4);
    expect(delta(worker1, worker0, "parley_receipts_total", { status: "delivered" })).toBe(4);
    expect(delta(worker1, worker0, "parley_receipts_total", { status: "undelivered" })).toBe(0);

    // Every POST the receiver got is one attempt, counted by how it was answered.
    const worker2 = await eventually(scrapeWorker, (f) => {
      const accepted = delta(f, worker0, "parley_webhook_attempts_total", { outcome: "accepted" });
      const refused = delta(f, worker0, "parley_webhook_attempts_total", { outcome: "http_error" });
      return accepted === 4 && refused === refuse.size && accepted + refused === receiver.requests.length;
    });
    expect(delta(worker2, worker0, "parley_webhook_attempts_total", { outcome: "http_error" })).toBe(2);
    expect(delta(worker2, worker0, "parley_webhook_attempts_total", { outcome: "timeout" })).toBe(0);

    // The server runs no worker: it counted none of that, so nothing is counted twice across the two scrapes.
    const server2 = await scrapeServer();
    expect(delta(server2, server0, "parley_segments_submitted_total")).toBe(0);
    expect(delta(server2, server0, "parley_receipts_total", { status: "delivered" })).toBe(0);
    // Once every attempt is written, no event waits.
    await eventually(scrapeServer, (f) => sampleValue(f, "parley_webhook_backlog") === 0);
  });

  it("on SQLite, times each write transaction's hold on the write lock, by who held it", async () => {
    const held = (families: Families, holder: string, sample: "count" | "sum") =>
      families
        .get("parley_sqlite_write_lock_held_seconds")
        ?.samples.find(
          (s) => s.name === `parley_sqlite_write_lock_held_seconds_${sample}` && s.labels.holder === holder,
        )?.value ?? 0;
    const [server0, worker0] = await Promise.all([scrapeServer(), scrapeWorker()]);
    expect(server0.get("parley_sqlite_write_lock_held_seconds")?.type).toBe("histogram");
    await send({ from: account.numbers[2], to: randomNumber(), body: "Who holds the lock?" });
    if (testProvider() !== "sqlite") {
      // PostgreSQL has no such lock: nothing is counted.
      const [server1, worker1] = await Promise.all([scrapeServer(), scrapeWorker()]);
      for (const families of [server1, worker1])
        expect(families.get("parley_sqlite_write_lock_held_seconds")?.samples ?? []).toEqual([]);
      return;
    }
    // The server: the send's batch, and the body indexer's steps; the worker: its grouped write transactions (the
    // round's reservation and record, the receipt, the webhook's outcome).
    const server1 = await eventually(
      scrapeServer,
      (f) =>
        held(f, "send_writer", "count") > held(server0, "send_writer", "count") &&
        held(f, "body_indexer", "count") > held(server0, "body_indexer", "count"),
    );
    const syncs = (families: Families) =>
      families
        .get("parley_sqlite_wal_sync_seconds")
        ?.samples.find((s) => s.name === "parley_sqlite_wal_sync_seconds_count")?.value ?? 0;
    // A commit is counted as it ends, its sync once that is done.
    const worker1 = await eventually(
      scrapeWorker,
      (f) =>
        held(f, "transactions", "count") >= held(worker0, "transactions", "count") + 2 && syncs(f) > syncs(worker0),
    );
    for (const [families, holder] of [
      [server1, "send_writer"],
      [server1, "body_indexer"],
      [worker1, "transactions"],
    ] as const) {
      const count = held(families, holder, "count");
      const sum = held(families, holder, "sum");
      expect(sum, holder).toBeGreaterThan(0);
      // Each hold a fraction of a second here.
      expect(sum / count, holder).toBeLessThan(0.5);
    }
    // Each process counts only its own holders: the worker writes no send batches and indexes no bodies.
    expect(held(worker1, "send_writer", "count")).toBe(0);
    expect(held(worker1, "body_indexer", "count")).toBe(0);
    // The worker's commits were synced to disk off its event loop, before it went on.
    expect(worker1.get("parley_sqlite_wal_sync_seconds")?.type).toBe("histogram");
    expect(syncs(worker1)).toBeGreaterThan(syncs(worker0));
    // And the send's batch, by the send writer's thread before the send was answered.
    expect(syncs(server1)).toBeGreaterThan(syncs(server0));
  });

  it("shows a number's queue: its depth and the age of its oldest waiting message", async () => {
    // One message every 100 s from this number: after the first leaves, the other three wait.
    const slow = account.numbers[3]!;
    const res = await call(server, "PATCH", `/api/admin/accounts/${account.accountId}/numbers/${slow}`, {
      headers: account.headers,
      body: { ratePerSecond: 0.01 },
    });
    expect(res.status, res.text).toBe(200);
    for (let i = 0; i < 4; i++) await send({ from: slow, to: randomNumber(), body: `Reminder ${i}` });
    const families = await eventually(scrapeServer, (f) => sampleValue(f, "parley_queue_depth", { from: slow }) === 3);
    const age = sampleValue(families, "parley_queue_oldest_age_seconds", { from: slow })!;
    expect(age).toBeGreaterThan(0);
    expect(age).toBeLessThan(60);
    // Everything else sent in this database has left.
    expect(sampleValue(families, "parley_queued_messages")).toBe(3);
    expect(sampleValue(families, "parley_queue_numbers")).toBe(1);
    // The other numbers' queues are empty: they are not listed.
    expect(sampleValue(families, "parley_queue_depth", { from: account.numbers[0]! })).toBeUndefined();
  });

  it("needs the token when METRICS_TOKEN is set: 401 without it or with another", async () => {
    const attempts: Record<string, string>[] = [
      {},
      { authorization: "Bearer not-the-token-0123456789" },
      { authorization: TOKEN }, // the token without the scheme
    ];
    for (const headers of attempts) {
      const res = await call(server, "GET", "/metrics", { headers });
      expect(res.status).toBe(401);
      expect(res.headers.get("www-authenticate")).toBe('Bearer realm="metrics"');
      expect(res.json).toMatchObject({
        status: "Unauthorized",
        statusCode: 401,
        statusMessage: "Missing or invalid credentials",
        data: { error_message: "/metrics needs the header Authorization: Bearer <METRICS_TOKEN>" },
      });
      expect(res.text).not.toContain("parley_");
    }
  });

  it("without a token answers only this machine: 403 to another client", async () => {
    // The worker trusts a proxy (TRUST_PROXY): the client is the one the proxy names.
    const res = await fetch(workerMetricsUrl, { headers: { "x-forwarded-for": "203.0.113.7" } });
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({
      status: "Forbidden",
      statusCode: 403,
      data: { error_message: "/metrics answers only this machine unless METRICS_TOKEN is set" },
    });
    const local = await fetch(workerMetricsUrl, { headers: { "x-forwarded-for": "127.0.0.1" } });
    expect(local.status).toBe(200);
    await local.text();
  });
});
