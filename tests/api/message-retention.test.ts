/* eslint-disable @typescript-eslint/no-explicit-any -- envelopes and log lines read loosely in assertions */
import { randomInt } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../helpers/server";
import { call, createTestAccount, releaseFactories, type TestAccount } from "../helpers/factories";
import { has, waitForSdrs } from "../helpers/wait-for";
import { portalCookie } from "../helpers/portal-session";
import { killAllWorkers, startWorker, type WorkerProcess } from "../helpers/worker-process";
import { startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver";
import { seedSettledMessages } from "../helpers/settled-messages";
import { createUser } from "../../lib/accounts/manage-accounts";
import { db } from "../../lib/db/client";

// Message retention end to end: a server running the delivery worker and a second worker process (`npm run worker`),
// both with MESSAGE_RETENTION_DAYS=30 and a retention pass about every second. Messages are really sent, received,
// delivered and reported by webhook; then some are made 40 days old (their creation time moved back in the
// database, the only thing a test cannot wait for) and the passes prune them.

const RETENTION_ENV = {
  WORKER_POLL_MS: "50",
  SIMULATOR_RECEIPT_DELAY_MS: "100",
  WEBHOOK_ALLOW_PRIVATE: "true",
  WEBHOOK_POLL_MS: "50",
  WEBHOOK_RETRY_SECONDS: "1",
  MESSAGE_RETENTION_DAYS: "30",
  // Longer than the messages': webhook events go after the shorter of the two.
  WEBHOOK_RETENTION_DAYS: "90",
  RETENTION_INTERVAL_SECONDS: "1",
  LOG_LEVEL: "info",
};
const DAY = 86_400_000;

let server: RunningServer;
let second: WorkerProcess;
let receiver: WebhookReceiver;
let acme: TestAccount;
let cookie: string;
/** Messages whose webhook the receiver refuses (503) while they are in here. */
const refused = new Set<string>();

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  receiver.respond = (request) => ({ status: refused.has(request.json.messageId) ? 503 : 200 });
  server = await startServer({ env: { PARLEY_WORKER: "true", ...RETENTION_ENV } });
  second = await startWorker(server.database.url, RETENTION_ENV);
  acme = await createTestAccount(server, { name: "Acme", numbers: 2, rateLimitPerSecond: 50 });
  const hook = await call(server, "PUT", `/api/admin/accounts/${acme.accountId}/webhook`, {
    headers: acme.headers,
    body: { url: receiver.url },
  });
  expect(hook.status).toBe(200);
  const email = `admin-${randomInt(1e9)}@retention.test`;
  await createUser({ accountId: acme.accountId, email, password: "correct horse battery", role: "admin" });
  cookie = await portalCookie(server, email, "correct horse battery");
});

afterAll(async () => {
  await killAllWorkers();
  await releaseFactories();
  await server?.stop();
  await receiver?.close();
});

/** A phone the simulator answers for by its last four digits (…0000 undelivered, …0002 no receipt ever). */
function phone(ending = String(randomInt(1000, 9999))): string {
  return `1415${randomInt(200, 999)}${ending}`;
}

async function send(to: string): Promise<{ messageId: string; status: string; reason: string }> {
  const res = await call(server, "POST", "/v3/messages", {
    headers: acme.headers,
    body: { accountId: acme.accountId, from: acme.numbers[0], to, body: "Your order has shipped" },
  });
  expect(res.status, res.text).toBe(200);
  return res.json.data.messageInfo[0];
}

/** A text from a phone to the account's first number, through the phone simulator (the carrier's inbound path). */
async function text(from: string, body: string) {
  const res = await call(server, "POST", `/api/admin/accounts/${acme.accountId}/simulator/inbound`, {
    headers: { cookie, "content-type": "application/json" },
    body: { phone: `+${from}`, accountNumber: `+${acme.numbers[0]}`, text: body },
  });
  expect(res.status, res.text).toBe(200);
  return res.json.data as { messageId: string; keyword: string | null; replyMessageId: string | null };
}

const sdrs = (messageId: string) =>
  call(server, "GET", `/v3/sdrs/${acme.accountId}/${messageId}`, { headers: acme.headers });

async function waitUntil(what: string, check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Rows that hang off these messages, by table. */
async function leftovers(ids: string[]) {
  const where = { messageId: { in: ids } };
  const events = await db().webhookEvent.findMany({ where, select: { id: true } });
  return {
    sdrs: await db().sdr.count({ where }),
    parts: await db().messagePart.count({ where }),
    webhookEvents: events.length,
    webhookAttempts: await db().webhookAttempt.count({ where: { eventId: { in: events.map((e) => e.id) } } }),
    flags: await db().messageFlag.count({ where }),
  };
}

/** The "retention pass" lines both processes logged, each with which process it was. */
function passes(): any[] {
  const lines = (output: string, by: string) =>
    output
      .split("\n")
      .filter((line) => line.includes('"retention pass"'))
      .map((line) => ({ ...JSON.parse(line), by }));
  return [...lines(server.output(), "server"), ...lines(second.output(), "worker")];
}

describe("message retention", () => {
  it("prunes settled messages older than the retention with what hangs off them, and keeps the rest", async () => {
    const old = await send(phone());
    const undelivered = await send(phone("0000"));
    const inFlight = await send(phone("0002"));
    const unreported = await send(phone());
    refused.add(unreported.messageId);
    const recent = await send(phone());
    const flagged = await text(phone(), "Please stop sending me these");
    const optedOut = phone();
    const stop = await text(optedOut, "STOP");
    expect(stop.keyword).toBe("out");
    const chatty = phone();
    const earlier = await text(chatty, "Is the store open on Sunday?");

    const settled = [old, undelivered, recent].map((m) => m.messageId);
    for (const id of [...settled, stop.replyMessageId!]) await waitForSdrs(server, acme, id, has("status_sent"));
    await waitForSdrs(server, acme, inFlight.messageId, has("wait_dlr"));
    await waitForSdrs(server, acme, unreported.messageId, has("dlr_received"));
    await receiver.waitFor((r) => r.json.messageId === unreported.messageId);
    const inbound = [flagged.messageId, stop.messageId, earlier.messageId];
    await waitUntil("the inbound webhooks are delivered", async () => {
      const pending = await db().webhookEvent.count({ where: { messageId: { in: inbound }, status: "pending" } });
      return pending === 0;
    });
    expect(await db().messageFlag.count({ where: { messageId: flagged.messageId } })).toBe(1);

    const testEvent = async () => {
      const res = await call(server, "POST", `/api/admin/accounts/${acme.accountId}/webhook/test`, {
        headers: acme.headers,
      });
      expect(res.json.data.test).toMatchObject({ ok: true });
      return res.json.data.test.eventId as string;
    };
    const [agedTest, youngerTest] = [await testEvent(), await testEvent()];

    // 40 days pass for all but `recent`: the messages, the conversations they alone make up, the opt-out, a test
    // event (another one only 20 days).
    const aged = new Date(Date.now() - 40 * DAY);
    const younger = new Date(Date.now() - 20 * DAY);
    const agedIds = [
      old.messageId,
      undelivered.messageId,
      inFlight.messageId,
      unreported.messageId,
      ...inbound,
      stop.replyMessageId!,
    ];
    const lonely = await db().conversation.findMany({
      where: { accountId: acme.accountId, remoteNumber: { not: chatty } },
      select: { id: true },
    });
    await db().$transaction([
      db().message.updateMany({ where: { id: { in: agedIds } }, data: { createdAt: aged } }),
      db().conversation.updateMany({
        where: { id: { in: lonely.map((c) => c.id) } },
        data: { createdAt: aged, lastMessageAt: aged },
      }),
      db().optEvent.updateMany({ where: { accountId: acme.accountId }, data: { createdAt: aged } }),
      db().optState.updateMany({ where: { accountId: acme.accountId }, data: { changedAt: aged } }),
      ...[
        [agedTest, aged],
        [youngerTest, younger],
      ].map(([id, at]) =>
        db().webhookEvent.update({
          where: { id: id as string },
          data: { createdAt: at, nextAttemptAt: at, retryFrom: at },
        }),
      ),
    ]);
    const later = await text(chatty, "Never mind, found it");

    const pruned = [old, undelivered].map((m) => m.messageId).concat(inbound, stop.replyMessageId!);
    await waitUntil("the old messages are pruned", async () => (await sdrs(old.messageId)).status === 404);
    // A pass prunes webhook events before messages: one under way while they were made old may have taken the
    // messages and left the aged test event to the next pass.
    await waitUntil(
      "the aged test event is pruned",
      async () => (await db().webhookEvent.count({ where: { id: agedTest } })) === 0,
    );
    for (const id of pruned) {
      const res = await sdrs(id);
      expect(res.status).toBe(404);
      expect(res.json).toMatchObject({ status: "MessageNotFound", statusCode: 404 });
      expect(res.json.data.results).toMatchObject({ error: "MessageNotFound", errorCode: 404 });
      const listed = await call(server, "GET", `/v3/messages?accountId=${acme.accountId}&messageId=${id}`, {
        headers: acme.headers,
      });
      expect(listed.json.data.results).toEqual([]);
    }
    expect(await leftovers(pruned)).toEqual({ sdrs: 0, parts: 0, webhookEvents: 0, webhookAttempts: 0, flags: 0 });

    // Still there: the recent message, the old one still waiting for its receipt, the old one whose webhook has not
    // been delivered yet, and the new message of a conversation whose older message went.
    const listing = await call(server, "GET", `/v3/messages?accountId=${acme.accountId}&count=1000`, {
      headers: acme.headers,
    });
    const listed = new Map<string, any>(listing.json.data.results.map((m: any) => [m.messageId, m]));
    for (const id of pruned) expect(listed.has(id)).toBe(false);
    expect(listed.get(recent.messageId)).toMatchObject({ status: "delivered" });
    expect(listed.get(inFlight.messageId)).toMatchObject({ status: "sent" });
    expect(listed.get(unreported.messageId)).toMatchObject({ status: "delivered" });
    expect(listed.has(later.messageId)).toBe(true);
    const kept = await leftovers([recent.messageId]);
    expect(kept.sdrs).toBeGreaterThanOrEqual(8);
    expect(kept).toMatchObject({ parts: 1, webhookEvents: 1, webhookAttempts: 1 });
    expect((await sdrs(inFlight.messageId)).json.data.results.at(-1)).toMatchObject({ status: "wait_dlr" });

    // Conversations: those left without messages are gone; the one with a new message stays, showing only it.
    const conversations = await call(server, "GET", `/api/admin/accounts/${acme.accountId}/conversations`, {
      headers: { cookie },
    });
    expect(conversations.json.data.conversations.map((c: any) => [c.remoteNumber, c.preview?.body])).toEqual([
      [chatty, "Never mind, found it"],
    ]);
    const thread = await call(
      server,
      "GET",
      `/api/admin/accounts/${acme.accountId}/conversations/${conversations.json.data.conversations[0].id}`,
      { headers: { cookie } },
    );
    expect(thread.json.data.messages.map((m: any) => m.body)).toEqual(["Never mind, found it"]);
    const flags = await call(server, "GET", `/api/admin/accounts/${acme.accountId}/opt/flags`, { headers: { cookie } });
    expect(flags.status).toBe(200);
    expect(JSON.stringify(flags.json.data)).not.toContain(flagged.messageId);

    const tests = await call(server, "GET", `/api/admin/accounts/${acme.accountId}/webhook/events?kind=test`, {
      headers: acme.headers,
    });
    expect(tests.json.data.events.map((e: any) => e.id)).toEqual([youngerTest]);

    // The opt-out outlives its messages: the audit trail still has it, and the phone still cannot be texted.
    const trail = await call(server, "GET", `/api/admin/accounts/${acme.accountId}/opt/events?number=${optedOut}`, {
      headers: acme.headers,
    });
    expect(trail.json.data.events).toMatchObject([
      { number: optedOut, action: "out", source: "keyword", messageId: stop.messageId, createdAt: aged.toISOString() },
    ]);
    expect(await send(optedOut)).toMatchObject({ status: "rejected", reason: "OptedOut" });

    // Once its webhook is delivered, the old message still reported on goes too.
    refused.delete(unreported.messageId);
    await waitUntil("the unreported message is pruned once reported", async () => {
      return (await sdrs(unreported.messageId)).status === 404;
    });
    expect(await leftovers([unreported.messageId])).toMatchObject({ sdrs: 0, webhookEvents: 0, webhookAttempts: 0 });
    expect((await sdrs(inFlight.messageId)).status).toBe(200);
  }, 60_000);

  it("prunes thousands of messages in short batches while a send still answers promptly", async () => {
    const count = 6_000;
    const from = acme.numbers[1]!;
    const timedSend = async () => {
      const started = performance.now();
      expect((await send(phone())).status).toBe("accepted");
      return performance.now() - started;
    };
    const quiet: number[] = [];
    for (let i = 0; i < 10; i++) quiet.push(await timedSend());
    await seedSettledMessages({ accountId: acme.accountId, from, count, createdAt: new Date(Date.now() - DAY) });
    const remaining = () => db().message.count({ where: { fromNumber: from } });
    expect(await remaining()).toBe(count);
    // All of them 40 days old at once; the next pass of either worker starts on them.
    const agedAt = Date.now();
    await db().message.updateMany({
      where: { fromNumber: from },
      data: { createdAt: new Date(Date.now() - 40 * DAY) },
    });
    await waitUntil("pruning starts", async () => (await remaining()) < count, 10_000);

    const during: number[] = [];
    for (let i = 0; i < 20; i++) {
      const ms = await timedSend();
      if ((await remaining()) > 0) during.push(ms);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await waitUntil("every seeded message is pruned", async () => (await remaining()) === 0, 40_000);

    expect(await db().messagePart.count({ where: { message: { fromNumber: from } } })).toBe(0);
    expect(await db().sdr.count({ where: { message: { fromNumber: from } } })).toBe(0);
    const done = () => passes().filter((p) => Date.parse(p.time) >= agedAt && p.messages > 0);
    // A pass reports when it ends, after the last batch.
    await waitUntil("the passes report", async () => done().reduce((n, p) => n + p.messages, 0) >= count);
    const batches = done().reduce((n, p) => n + p.batches, 0);
    const maxBatchMs = Math.max(...done().map((p) => p.maxBatchMs));
    const spread = (times: number[]) => {
      const sorted = [...times].sort((a, b) => a - b);
      const median = sorted[Math.floor(sorted.length / 2)]!;
      return `${Math.round(sorted[0]!)}–${Math.round(sorted.at(-1)!)} ms (median ${Math.round(median)} ms)`;
    };
    console.log(
      `retention on ${server.database.provider}: ${count} messages (8 SDRs, a part, a webhook event and its attempt ` +
        `each) in ${batches} batches by ${[...new Set(done().map((p) => p.by))].join(" and ")}; longest batch ` +
        `${maxBatchMs} ms; ${during.length} sends during pruning answered in ${spread(during)}, ` +
        `10 sends before it in ${spread(quiet)}`,
    );
    expect(done().reduce((n, p) => n + p.messages, 0)).toBe(count);
    // On PostgreSQL one pass at a time across the workers (an advisory lock): the first one after the ageing did it
    // all, the other worker's passes meanwhile stood aside.
    if (server.database.provider === "postgresql") expect(done()).toHaveLength(1);
    expect(batches).toBeGreaterThanOrEqual(count / 500);
    // Generous bounds for a busy machine; one transaction for all of them holds the lock for seconds.
    expect(maxBatchMs).toBeLessThan(1500);
    expect(during.length).toBeGreaterThanOrEqual(5);
    expect(Math.max(...during)).toBeLessThan(2000);
    expect(second.errors()).toEqual([]);
  }, 60_000);
});

describe("configuration", () => {
  it("a worker refuses a retention that is not a whole number of days, saying so without a stack trace", async () => {
    for (const [value, problem] of [
      ["0", "MESSAGE_RETENTION_DAYS: Too small"],
      ["1.5", "MESSAGE_RETENTION_DAYS: a whole number of days"],
    ]) {
      const failed = await startWorker(server.database.url, { MESSAGE_RETENTION_DAYS: value! }).then(
        () => "",
        (error: Error) => error.message,
      );
      expect(failed).toContain("Parley worker could not start: Invalid configuration in the environment");
      expect(failed).toContain(problem);
      expect(failed).not.toMatch(/^\s+at /m);
    }
  });
});
