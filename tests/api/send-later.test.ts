import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../helpers/server";
import { createTestDatabase, type TestDatabase } from "../helpers/test-database";
import {
  bindTo,
  call,
  createTestAccount,
  randomNumber,
  releaseFactories,
  type TestAccount,
} from "../helpers/factories";
import { has, sdrTime, statuses, waitForSdrs, type SdrRecord } from "../helpers/wait-for";
import { startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver";
import { db } from "../../lib/db/client";

// Sending later, cancelling, validity, smart encoding and the preview, end to end: the server with its worker and
// the simulator carrier, and a webhook receiver on loopback. Waiting minutes for a schedule is not a test: a
// scheduled message's time (or a validity's end) is moved closer in the database, as the passing of time would, and
// what the worker does then is what a client sees.
let database: TestDatabase;
let server: RunningServer;
let account: TestAccount;
let other: TestAccount;
let receiver: WebhookReceiver;

const ENV = {
  PARLEY_WORKER: "true",
  WORKER_POLL_MS: "50",
  SIMULATOR_RECEIPT_DELAY_MS: "100",
  WEBHOOK_ALLOW_PRIVATE: "true",
  WEBHOOK_POLL_MS: "50",
};

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  database = await createTestDatabase();
  server = await startServer({ database, env: ENV });
  account = await createTestAccount(server, { numbers: 3, rateLimitPerSecond: 50 });
  other = await createTestAccount(server, { numbers: 1 });
  const res = await call(server, "PUT", `/api/admin/accounts/${account.accountId}/webhook`, {
    headers: account.headers,
    body: { url: receiver.url },
  });
  expect(res.status, res.text).toBe(200);
});

afterAll(async () => {
  await releaseFactories();
  await server?.stop();
  await database?.drop();
  await receiver?.close();
});

interface Entry {
  messageId: string;
  body: string;
  numSegments: number;
  status: string;
}

async function send(fields: Record<string, unknown>, from = account.numbers[0]) {
  return call(server, "POST", "/v3/messages", {
    headers: account.headers,
    body: { accountId: account.accountId, from, to: randomNumber(), body: "Your table is ready", ...fields },
  });
}

async function sent(fields: Record<string, unknown>, from?: string): Promise<Entry> {
  const res = await send(fields, from);
  expect(res.status, res.text).toBe(200);
  return res.json.data.messageInfo[0] as Entry;
}

async function listingStatus(messageId: string): Promise<string> {
  const res = await call(server, "GET", `/v3/messages?accountId=${account.accountId}&messageId=${messageId}`, {
    headers: account.headers,
  });
  return res.json.data.results[0].status;
}

async function sdrs(messageId: string): Promise<SdrRecord[]> {
  const res = await call(server, "GET", `/v3/sdrs/${account.accountId}/${messageId}`, { headers: account.headers });
  return res.json.data.results;
}

/** The delivery's records, without the webhook's (status_sent comes whenever the receiver answers). */
const delivery = (records: SdrRecord[]) => statuses(records).filter((s) => !s.startsWith("status_"));

const ahead = (ms: number) => new Date(Date.now() + ms).toISOString();

/** Time passes for a waiting message: its sendAt or validity end comes `ms` from now. */
async function moveClock(messageId: string, field: "sendAt" | "validUntil", ms: number): Promise<Date> {
  await bindTo(server);
  const at = new Date(Date.now() + ms);
  await db().message.update({ where: { id: messageId }, data: { [field]: at } });
  return at;
}

describe("a scheduled send", () => {
  it("is accepted, listed scheduled, survives a restart and leaves at its time", async () => {
    const sendAt = new Date(Date.now() + 2 * 60_000);
    const entry = await sent({ sendAt: sendAt.toISOString().replace("Z", "+00:00"), referenceId: "later1" });
    expect(entry.status).toBe("accepted");
    expect(await listingStatus(entry.messageId)).toBe("scheduled");
    const before = await sdrs(entry.messageId);
    expect(statuses(before)).toEqual(["accepted", "scheduled"]);
    expect(before[1]!.statusDetails).toBe(`until ${sendAt.toISOString()}`);
    const listed = await call(server, "GET", `/v3/messages?accountId=${account.accountId}&status=scheduled`, {
      headers: account.headers,
    });
    expect(listed.json.data.results.map((m: { messageId: string }) => m.messageId)).toContain(entry.messageId);

    // The server (and its worker) stop and start again on the same database: the schedule is still there.
    await releaseFactories();
    await server.stop();
    server = await startServer({ database, env: ENV });
    expect(await listingStatus(entry.messageId)).toBe("scheduled");

    const due = await moveClock(entry.messageId, "sendAt", 1_500);
    const records = await waitForSdrs(server, account, entry.messageId, has("dlr_received"), 15_000);
    expect(delivery(records)).toEqual([
      "accepted",
      "scheduled",
      "queued",
      "sending",
      "message_sent",
      "wait_dlr",
      "delivered",
      "dlr_received",
    ]);
    // On time: not before its time, and within the second after it (half a second more for a busy machine).
    const queued = sdrTime(records.find((r) => r.status === "queued")!);
    const left = sdrTime(records.find((r) => r.status === "message_sent")!);
    expect(queued).toBeGreaterThanOrEqual(due.getTime() - 5);
    expect(left - due.getTime()).toBeLessThan(1_500);
  });

  it("refuses a sendAt that is malformed, without an offset, too soon or too far, naming the field", async () => {
    const cases: [unknown, RegExp][] = [
      ["tomorrow at nine", /'sendAt' must be an ISO 8601 date-time with an offset/],
      ["2026-12-01T09:30:00", /'sendAt' must be an ISO 8601 date-time with an offset/],
      ["2026-02-30T09:30:00Z", /'sendAt' must be an ISO 8601 date-time with an offset/],
      [ahead(20_000), /'sendAt' must be at least 60 seconds ahead/],
      [ahead(-60_000), /'sendAt' must be at least 60 seconds ahead \(it is \d+ seconds in the past\)/],
      [ahead(36 * 86_400_000), /'sendAt' must be at most 35 days ahead/],
      [1767225600, /'sendAt' must be a string/],
    ];
    for (const [sendAt, message] of cases) {
      const res = await send({ sendAt });
      expect(res.status, String(sendAt)).toBe(400);
      expect(res.json).toMatchObject({ status: "InvalidRequest", data: { field: "sendAt" } });
      expect(res.json.data.error_message).toMatch(message);
    }
  });
});

describe("cancelling", () => {
  it("cancels a scheduled message: status, an SDR, a webhook; a second cancel and another account are refused", async () => {
    const entry = await sent({ sendAt: ahead(10 * 60_000), referenceId: "cancel1" });
    const res = await call(server, "POST", `/v3/messages/${entry.messageId}/cancel`, { headers: account.headers });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({
      status: "UpdateSuccessful",
      data: { accountId: account.accountId, messageId: entry.messageId, status: "cancelled", apiVersion: "v3" },
    });
    expect(await listingStatus(entry.messageId)).toBe("cancelled");
    const records = await sdrs(entry.messageId);
    expect(delivery(records)).toEqual(["accepted", "scheduled", "cancelled"]);
    expect(records[2]).toMatchObject({
      segmentNumber: 1,
      statusDetails: "cancelled by the API",
      referenceId: "cancel1",
    });
    const event = await receiver.waitFor((r) => r.json.messageId === entry.messageId);
    expect(event.json).toMatchObject({ status: "cancelled", segmentNumber: 1, referenceId: "cancel1" });
    expect(event.json.statusMsg).toMatch(/^stat:DELETED cancelled by the API err:000$/);

    const again = await call(server, "POST", `/v3/messages/${entry.messageId}/cancel`, { headers: account.headers });
    expect(again.status).toBe(409);
    expect(again.json).toMatchObject({ status: "MessageNotCancellable" });
    expect(again.json.data.error_message).toBe("the message is cancelled");

    const theirs = await call(server, "POST", `/v3/messages/${entry.messageId}/cancel`, { headers: other.headers });
    expect(theirs.status).toBe(404);
    expect(theirs.json.status).toBe("MessageNotFound");
    const bogus = await call(server, "POST", `/v3/messages/not-a-message/cancel`, { headers: account.headers });
    expect(bogus.status).toBe(404);
    const get = await call(server, "GET", `/v3/messages/${entry.messageId}/cancel`, { headers: account.headers });
    expect(get.json.status).toBe("ResourceNotAllowed");
  });

  it("refuses to cancel a message that has left, and changes nothing", async () => {
    const entry = await sent({});
    await waitForSdrs(server, account, entry.messageId, has("delivered"));
    const res = await call(server, "POST", `/v3/messages/${entry.messageId}/cancel`, { headers: account.headers });
    expect(res.status).toBe(409);
    expect(res.json.data.error_message).toBe("the message is delivered");
    expect(await listingStatus(entry.messageId)).toBe("delivered");
  });
});

describe("validity", () => {
  it("expires a one-time code stuck behind a queue instead of sending it late; the queue goes on", async () => {
    const from = account.numbers[1];
    // Five messages ahead of it on the same number: one a second.
    for (let i = 0; i < 5; i++) await sent({ body: `Queue ${i}` }, from);
    const code = await sent({ body: "Your code is 493027", validitySeconds: 60, referenceId: "otp1" }, from);
    const after = await sent({ body: "After the code" }, from);
    await moveClock(code.messageId, "validUntil", 1_500);
    const records = await waitForSdrs(server, account, code.messageId, has("expired"), 10_000);
    expect(delivery(records)).toEqual(["accepted", "queued", "expired"]);
    expect(records[2]).toMatchObject({ segmentNumber: 1, statusDetails: "validity period ended before it was sent" });
    const event = await receiver.waitFor((r) => r.json.messageId === code.messageId);
    expect(event.json).toMatchObject({ status: "expired", referenceId: "otp1" });
    // The message after it is sent; the code never is.
    await waitForSdrs(server, account, after.messageId, has("message_sent"), 15_000);
    expect(delivery(await sdrs(code.messageId))).toEqual(["accepted", "queued", "expired"]);
    expect(await listingStatus(code.messageId)).toBe("expired");
  });

  it("refuses a validity out of range, naming the field", async () => {
    for (const [validitySeconds, message] of [
      [10, "'validitySeconds' must be at least 30 seconds"],
      [200_000, "'validitySeconds' must be at most 129600 seconds (36 hours)"],
      [90.5, "'validitySeconds' must be a whole number of seconds"],
      ["60", "'validitySeconds' must be a number"],
    ] as const) {
      const res = await send({ validitySeconds });
      expect(res.status).toBe(400);
      expect(res.json.data).toMatchObject({ field: "validitySeconds", error_message: message });
    }
  });
});

describe("smart encoding and the preview", () => {
  const curly = "Don\u2019t forget: your table is booked for 8\u00a0pm \u2014 see you \u201csoon\u201d\u2026";

  it("previews the text, its segments, the culprits and each destination's fate, storing nothing", async () => {
    const optedOut = randomNumber();
    const opt = await call(server, "POST", `/api/admin/accounts/${account.accountId}/opt/numbers`, {
      headers: account.headers,
      body: { number: optedOut, action: "out" },
    });
    expect(opt.status, opt.text).toBe(200);
    const allowed = randomNumber();
    const preview = (fields: Record<string, unknown>) =>
      call(server, "POST", "/v3/messages/preview", {
        headers: account.headers,
        body: { accountId: account.accountId, from: account.numbers[2], body: curly, ...fields },
      });

    const plain = await preview({ toArray: [allowed, optedOut, "12", allowed] });
    expect(plain.status, plain.text).toBe(200);
    expect(plain.json.data).toMatchObject({
      body: curly,
      encoding: "UCS2",
      numSegments: 1,
      culprits: ["\u2019", "\u00a0", "\u2014", "\u201c", "\u201d", "\u2026"],
      replaced: [],
      destinations: [
        { to: `+${allowed}`, allowed: true, reason: "" },
        { to: `+${optedOut}`, allowed: false, reason: "OptedOut" },
        { to: "12", allowed: false, reason: "InvalidDestination" },
        { to: `+${allowed}`, allowed: false, reason: "DuplicateDestination" },
      ],
    });

    const smart = await preview({ to: allowed, smartEncoding: true, body: curly.repeat(2) });
    const fixed = 'Don\'t forget: your table is booked for 8 pm - see you "soon"...';
    expect(smart.json.data).toMatchObject({
      body: fixed.repeat(2),
      encoding: "GSM7",
      numSegments: 1,
      culprits: [],
      replaced: ["\u2019", "\u00a0", "\u2014", "\u201c", "\u201d", "\u2026"],
    });

    const bad = await preview({ to: allowed, sendAt: "soon" });
    expect(bad.status).toBe(400);
    expect(bad.json.data.field).toBe("sendAt");
    const listing = await call(server, "GET", `/v3/messages?accountId=${account.accountId}&to=${allowed}`, {
      headers: account.headers,
    });
    expect(listing.json.data.total).toBe(0);
  });

  it("sends the fixed text when the send or the account asks for smart encoding", async () => {
    const off = await sent({ body: curly });
    expect(off).toMatchObject({ body: curly, numSegments: 1 });
    const on = await send({ body: curly.repeat(3), smartEncoding: true });
    const fixed = 'Don\'t forget: your table is booked for 8 pm - see you "soon"...';
    expect(on.json.data.body).toBe(fixed.repeat(3));
    expect(on.json.data.messageInfo[0]).toMatchObject({ body: fixed.repeat(3), numSegments: 2 });

    const settings = await call(server, "PUT", `/api/admin/accounts/${account.accountId}`, {
      headers: account.headers,
      body: { smartEncoding: true },
    });
    expect(settings.status, settings.text).toBe(200);
    expect(settings.json.data.account.smartEncoding).toBe(true);
    expect(await sent({ body: curly })).toMatchObject({ body: fixed, numSegments: 1 });
    expect(await sent({ body: curly, smartEncoding: false })).toMatchObject({ body: curly });
    await call(server, "PUT", `/api/admin/accounts/${account.accountId}`, {
      headers: account.headers,
      body: { smartEncoding: false },
    });
  });
});
