// Webhook delivery measured in this process: inbound messages stored through the real service (each writes its
// event in its own transaction), a WebhookDispatcher posting them to a receiver on 127.0.0.1 that answers 200.
//   npm run bench:webhooks -- [--db sqlite|postgresql] [--backlog 2000] [--rate 50] [--seconds 10]
//                             [--concurrency 16] [--poll-ms 100]
// Scenarios, each on a fresh database with the migrations applied:
//   steady   events written at `--rate` a second for `--seconds` while the dispatcher runs: first-attempt latency,
//            from the event (the message's receipt) to the receiver reading the POST: p50/p95/p99 (goal p95 ≤ 1 s),
//            and the same from the commit of the message with its event.
//   backlog  `--backlog` events written with the dispatcher stopped, then drained: deliveries a second.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { cpus, loadavg } from "node:os";
import { parseArgs } from "node:util";
import { reloadEnv } from "../lib/env";
import { disconnectDb } from "../lib/db/client";
import { prepareDatabase } from "../lib/boot/prepare-database";
import { createAccount } from "../lib/accounts/manage-accounts";
import { provisionNumber } from "../lib/numbers/manage-numbers";
import { receiveMessage } from "../lib/messaging/receive-message";
import { setWebhookSettings } from "../lib/webhooks/manage-webhook";
import { WebhookDispatcher } from "../lib/webhooks/webhook-dispatcher";
import { createTestDatabase } from "../tests/helpers/test-database";

const { values } = parseArgs({
  options: {
    db: { type: "string", default: "sqlite" },
    backlog: { type: "string", default: "2000" },
    rate: { type: "string", default: "50" },
    seconds: { type: "string", default: "10" },
    concurrency: { type: "string", default: "16" },
    "poll-ms": { type: "string", default: "100" },
  },
});
if (values.db !== "sqlite" && values.db !== "postgresql") throw new Error("--db is sqlite or postgresql");
process.env.PARLEY_TEST_DB = values.db;
process.env.LOG_LEVEL ??= "fatal";
process.env.WEBHOOK_ALLOW_PRIVATE = "true";
const backlog = Number(values.backlog);
const rate = Number(values.rate);
const seconds = Number(values.seconds);
const concurrency = Number(values.concurrency);
const pollMs = Number(values["poll-ms"]);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

setTimeout(() => {
  console.error("bench/webhooks.ts: still running after 10 minutes; giving up");
  process.exit(2);
}, 600_000).unref();

/** The receiver: first arrival time of each event id, and the event's own timestamp. */
async function startReceiver() {
  const arrivals = new Map<string, { at: number; eventAt: number; messageId: string }>();
  let posts = 0;
  const server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (c: string) => (body += c));
    req.on("end", () => {
      const at = Date.now();
      posts++;
      const id = req.headers["webhook-id"] as string;
      const json = JSON.parse(body) as { timestamp: string; messageId: string };
      if (!arrivals.has(id)) arrivals.set(id, { at, eventAt: Date.parse(json.timestamp), messageId: json.messageId });
      res.writeHead(200).end();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    arrivals,
    posts: () => posts,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function setUp(receiverUrl: string) {
  const database = await createTestDatabase();
  await disconnectDb();
  process.env.DATABASE_URL = database.url;
  reloadEnv();
  await prepareDatabase();
  const account = await createAccount({ name: "Webhook bench" });
  const number = await provisionNumber({ accountId: account.id, number: "+14155550100", actor: "cli" });
  await setWebhookSettings(account.id, { url: receiverUrl });
  let n = 0;
  const inbound = () =>
    receiveMessage({
      from: `1212555${String(1000 + (n++ % 9000)).padStart(4, "0")}`,
      to: number.number,
      text: `Reply ${n}`,
      media: [],
      numSegments: 1,
      receivedAt: new Date(),
    });
  return { database, inbound };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}

async function waitUntil(done: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!done() && Date.now() < deadline) await sleep(20);
  return done();
}

const dispatcher = () => new WebhookDispatcher({ pollMs, concurrency, allowPrivate: true, timeoutMs: 10_000 });

async function steady() {
  const receiver = await startReceiver();
  const { database, inbound } = await setUp(receiver.url);
  const d = dispatcher();
  d.start();
  const total = Math.round(rate * seconds);
  const started = Date.now();
  const committed = new Map<string, number>();
  // Writes as a carrier connection delivers them: a few at a time, each one's start on the schedule (or late, when
  // the database cannot keep up: that lateness counts in the latency from the event).
  const writing = new Set<Promise<void>>();
  let writeErrors = 0;
  for (let i = 0; i < total; i++) {
    const due = started + (i * 1000) / rate;
    if (due > Date.now()) await sleep(due - Date.now());
    while (writing.size >= 4) await Promise.race(writing);
    const write: Promise<void> = inbound()
      .then((r) => void (r && committed.set(r.messageId, Date.now())))
      .catch(() => void writeErrors++)
      .finally(() => writing.delete(write));
    writing.add(write);
  }
  await Promise.all(writing);
  const complete = await waitUntil(() => receiver.arrivals.size >= committed.size, 60_000);
  await d.stop();
  const latencies = [...receiver.arrivals.values()].map((a) => a.at - a.eventAt).sort((a, b) => a - b);
  const afterCommit = [...receiver.arrivals.values()]
    .map((a) => a.at - (committed.get(a.messageId) ?? NaN))
    .filter((ms) => !Number.isNaN(ms))
    .sort((a, b) => a - b);
  await receiver.close();
  await disconnectDb();
  await database.drop();
  return {
    events: committed.size,
    writeErrors,
    delivered: receiver.arrivals.size,
    complete,
    firstAttemptLatencyMs: {
      p50: percentile(latencies, 50),
      p95: percentile(latencies, 95),
      p99: percentile(latencies, 99),
      max: latencies.at(-1),
    },
    // From the commit of the message and its event (the outbox row is visible) to the receiver.
    afterCommitMs: {
      p50: percentile(afterCommit, 50),
      p95: percentile(afterCommit, 95),
      p99: percentile(afterCommit, 99),
    },
  };
}

async function drain() {
  const receiver = await startReceiver();
  const { database, inbound } = await setUp(receiver.url);
  for (let i = 0; i < backlog; i += 50) await Promise.all(Array.from({ length: Math.min(50, backlog - i) }, inbound));
  const d = dispatcher();
  const started = performance.now();
  d.start();
  const complete = await waitUntil(() => receiver.arrivals.size >= backlog, 300_000);
  const ms = performance.now() - started;
  await d.stop();
  await receiver.close();
  await disconnectDb();
  await database.drop();
  return {
    events: backlog,
    delivered: receiver.arrivals.size,
    duplicates: receiver.posts() - receiver.arrivals.size,
    complete,
    seconds: Math.round(ms) / 1000,
    deliveriesPerSecond: Math.round((receiver.arrivals.size / ms) * 1000),
  };
}

const results = {
  db: values.db,
  machine: { cpus: cpus().length, load: loadavg().map((l) => Math.round(l * 100) / 100) },
  settings: { concurrency, pollMs },
  steady: await steady(),
  backlog: await drain(),
};
console.log(JSON.stringify(results, null, 2));
process.exit(0);
