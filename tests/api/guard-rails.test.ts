import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomInt } from "node:crypto";
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
import { has, statuses, waitForSdrs, type SdrRecord } from "../helpers/wait-for";
import { startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver";
import { db } from "../../lib/db/client";

// The guard rails, end to end: allowed destination countries, daily limits on messages and segments (the 80 %
// warning event, the refusal, exact under concurrent sends), and the SMS pumping defence's hold, release and cancel.
// The server runs its worker and the simulator carrier; a webhook receiver listens on loopback.
let database: TestDatabase;
let server: RunningServer;
let receiver: WebhookReceiver;

const ENV = {
  PARLEY_WORKER: "true",
  WORKER_POLL_MS: "50",
  SIMULATOR_RECEIPT_DELAY_MS: "100",
  WEBHOOK_ALLOW_PRIVATE: "true",
  WEBHOOK_POLL_MS: "50",
  // Settings changed through the admin API are seen at once by the server's sends.
  API_KEY_CACHE_SECONDS: "0",
};

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  database = await createTestDatabase();
  server = await startServer({ database, env: ENV });
});

afterAll(async () => {
  await releaseFactories();
  await server?.stop();
  await database?.drop();
  await receiver?.close();
});

async function newAccount(settings: Record<string, unknown> = {}, webhook = false): Promise<TestAccount> {
  const account = await createTestAccount(server, { numbers: 2, rateLimitPerSecond: 50 });
  if (Object.keys(settings).length > 0) await configure(account, settings);
  if (webhook) {
    const res = await call(server, "PUT", `/api/admin/accounts/${account.accountId}/webhook`, {
      headers: account.headers,
      body: { url: receiver.url },
    });
    expect(res.status, res.text).toBe(200);
  }
  return account;
}

async function configure(account: TestAccount, settings: Record<string, unknown>) {
  const res = await call(server, "PUT", `/api/admin/accounts/${account.accountId}`, {
    headers: account.headers,
    body: settings,
  });
  expect(res.status, res.text).toBe(200);
  return res.json.data.account;
}

function send(account: TestAccount, fields: Record<string, unknown>) {
  return call(server, "POST", "/v3/messages", {
    headers: account.headers,
    body: { accountId: account.accountId, from: account.numbers[0], body: "Your code is 493027", ...fields },
  });
}

interface Entry {
  messageId: string;
  to: string;
  status: string;
  reason: string;
}

async function entries(account: TestAccount, fields: Record<string, unknown>): Promise<Entry[]> {
  const res = await send(account, fields);
  expect(res.status, res.text).toBe(200);
  return res.json.data.messageInfo;
}

async function listed(account: TestAccount, query = ""): Promise<{ messageId: string; status: string }[]> {
  const res = await call(server, "GET", `/v3/messages?accountId=${account.accountId}&count=1000${query}`, {
    headers: account.headers,
  });
  expect(res.status, res.text).toBe(200);
  return res.json.data.results;
}

async function statusOf(account: TestAccount, messageId: string): Promise<string> {
  return (await listed(account, `&messageId=${messageId}`))[0]!.status;
}

async function sdrs(account: TestAccount, messageId: string): Promise<SdrRecord[]> {
  const res = await call(server, "GET", `/v3/sdrs/${account.accountId}/${messageId}`, { headers: account.headers });
  return res.json.data.results;
}

async function dashboard(account: TestAccount) {
  const res = await call(server, "GET", `/api/admin/accounts/${account.accountId}/dashboard`, {
    headers: account.headers,
  });
  expect(res.status, res.text).toBe(200);
  return res.json.data;
}

// One range of Sierra Leone's mobiles (a burst is counted by country code and three digits: +232 761…).
const sierraLeone = () => `232761${String(randomInt(10_000, 100_000))}`;
const premiumUs = () => `1900${randomInt(2, 10)}${String(randomInt(0, 1_000_000)).padStart(6, "0")}`;
const britishMobile = () => `447400${String(randomInt(100_000, 1_000_000))}`;

describe("allowed destination countries", () => {
  it("sends only to the countries of the account's numbers by default, and to what an admin allows", async () => {
    const account = await newAccount();
    const [abroad, home] = await entries(account, { toArray: [britishMobile(), randomNumber()] });
    expect(abroad).toMatchObject({ status: "rejected", reason: "CountryNotAllowed" });
    expect(home).toMatchObject({ status: "accepted", reason: "" });
    expect(await statusOf(account, abroad!.messageId)).toBe("rejected");
    expect(statuses(await sdrs(account, abroad!.messageId))).toEqual(["rejected"]);

    // The preview says so without sending.
    const gb = britishMobile();
    const preview = await call(server, "POST", "/v3/messages/preview", {
      headers: account.headers,
      body: { accountId: account.accountId, from: account.numbers[0], to: gb, body: "Hello" },
    });
    expect(preview.json.data.destinations).toEqual([
      expect.objectContaining({ to: `+${gb}`, allowed: false, reason: "CountryNotAllowed" }),
    ]);

    const saved = await configure(account, { allowedCountries: ["us", "GB"] });
    expect(saved.allowedCountries).toEqual(["GB", "US"]);
    const [now] = await entries(account, { to: britishMobile() });
    expect(now).toMatchObject({ status: "accepted" });
    await waitForSdrs(server, account, now!.messageId, has("delivered"));
    const [stillNot] = await entries(account, { to: sierraLeone() });
    expect(stillNot).toMatchObject({ status: "rejected", reason: "CountryNotAllowed" });

    await configure(account, { allowedCountries: ["*"] });
    const [any] = await entries(account, { to: sierraLeone() });
    expect(any).toMatchObject({ status: "accepted" });
    // Back to the default: [] is the countries of the numbers again.
    expect((await configure(account, { allowedCountries: [] })).allowedCountries).toEqual([]);
    expect((await entries(account, { to: sierraLeone() }))[0]).toMatchObject({ reason: "CountryNotAllowed" });
  });

  it("refuses a country code it does not know, naming the field, and changes nothing", async () => {
    const account = await newAccount();
    for (const [allowedCountries, message] of [
      [
        ["US", "XX"],
        "'allowedCountries' has XX, which is not a country code Parley knows (ISO 3166, such as US or GB)",
      ],
      [["USA"], "must be two-letter country codes such as US or GB, or * for any country"],
      [["*", "US"], "* (any country) stands alone"],
    ] as const) {
      const res = await call(server, "PUT", `/api/admin/accounts/${account.accountId}`, {
        headers: account.headers,
        body: { allowedCountries },
      });
      expect(res.status, res.text).toBe(400);
      expect(res.json.data.field).toMatch(/^allowedCountries/);
      expect(res.json.data.error_message).toContain(message);
    }
    const res = await call(server, "GET", `/api/admin/accounts/${account.accountId}`, { headers: account.headers });
    expect(res.json.data.account).toMatchObject({
      allowedCountries: [],
      dailyMessageLimit: 0,
      dailySegmentLimit: 0,
      burstHoldThreshold: 20,
    });
  });
});

describe("daily limits", () => {
  it("warns at 80 % with a webhook event and the dashboard, then refuses clearly past 100 %, storing nothing", async () => {
    const account = await newAccount({ dailyMessageLimit: 5 }, true);
    expect(await entries(account, { toArray: [randomNumber(), randomNumber(), randomNumber()] })).toHaveLength(3);
    const [fourth] = await entries(account, { to: randomNumber() });
    const warning = await receiver.waitFor(
      (r) => r.headers["parley-event"] === "limit-warning" && r.json.accountId === account.accountId,
    );
    expect(warning.json).toMatchObject({
      apiVersion: "v3",
      accountId: account.accountId,
      messageId: fourth!.messageId,
      limit: "messages",
      used: 4,
      max: 5,
      percent: 80,
      timeZone: "UTC",
    });
    expect(warning.headers["webhook-id"]).toBeTruthy();

    const before = (await listed(account)).length;
    const refused = await send(account, { toArray: [randomNumber(), randomNumber()] });
    expect(refused.status).toBe(429);
    expect(refused.json).toMatchObject({
      status: "DailyLimitReached",
      statusMessage: "The account's daily sending limit is reached",
      data: { limit: "messages", max: 5, used: 4, asked: 2 },
    });
    expect(refused.json.data.error_message).toMatch(
      /^the account's daily limit of 5 messages allows 1 more today \(\d{4}-\d\d-\d\d, UTC\); this send has 2\. The limit starts again at \d{4}-\d\d-\d\dT00:00:00\.000Z$/,
    );
    expect(await listed(account)).toHaveLength(before);

    expect(await entries(account, { to: randomNumber() })).toHaveLength(1);
    expect((await send(account, { to: randomNumber() })).status).toBe(429);
    // A refused destination does not count: the send is answered as usual.
    const [opted] = await entries(account, { to: "19999999999" });
    expect(opted).toMatchObject({ status: "rejected", reason: "InvalidDestination" });

    const board = await dashboard(account);
    expect(board.guard.usage.messages).toEqual({ used: 5, max: 5 });
    // The warning was sent once.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const warnings = receiver.requests.filter(
      (r) => r.headers["parley-event"] === "limit-warning" && r.json.accountId === account.accountId,
    );
    expect(warnings).toHaveLength(1);

    // An admin raises the limit: sends go again at once.
    await configure(account, { dailyMessageLimit: 10 });
    expect(await entries(account, { to: randomNumber() })).toHaveLength(1);
  });

  it("never lets concurrent sends take more than the limit between them", async () => {
    const account = await newAccount({ dailyMessageLimit: 10 });
    const answers = await Promise.all(Array.from({ length: 25 }, () => send(account, { to: randomNumber() })));
    expect(answers.filter((r) => r.status === 200)).toHaveLength(10);
    expect(answers.filter((r) => r.status === 429)).toHaveLength(15);
    expect(answers.every((r) => r.status === 200 || r.json.status === "DailyLimitReached")).toBe(true);
    expect(await listed(account)).toHaveLength(10);
  });

  it("counts segments too", async () => {
    const account = await newAccount({ dailySegmentLimit: 3 });
    const long = "A long text. ".repeat(20);
    const [first] = await entries(account, { to: randomNumber(), body: long });
    expect(first).toMatchObject({ status: "accepted", numSegments: 2 });
    const refused = await send(account, { to: randomNumber(), body: long });
    expect(refused.status).toBe(429);
    expect(refused.json.data).toMatchObject({ limit: "segments", max: 3, used: 2, asked: 2 });
    expect(await entries(account, { to: randomNumber(), body: "Short" })).toHaveLength(1);
  });

  it("refuses a campaign that would pass the limit before storing any of it", async () => {
    const account = await newAccount({ dailyMessageLimit: 4 });
    const res = await call(server, "POST", "/v3/campaigns", {
      headers: account.headers,
      body: {
        accountId: account.accountId,
        name: "Too big",
        body: "Sale today",
        fromNumbers: account.numbers,
        audience: { numbers: Array.from({ length: 6 }, () => randomNumber()) },
      },
    });
    expect(res.status, res.text).toBe(429);
    expect(res.json.data).toMatchObject({ limit: "messages", max: 4, used: 0, asked: 6 });
    const campaigns = await call(server, "GET", `/v3/campaigns?accountId=${account.accountId}`, {
      headers: account.headers,
    });
    expect(campaigns.json.data.campaigns).toEqual([]);
    expect(await listed(account)).toHaveLength(0);
  });

  it("takes a campaign's whole share at once and gives back what its opted-out phones did not use", async () => {
    const account = await newAccount({ dailyMessageLimit: 5 });
    const phones = [randomNumber(), randomNumber(), randomNumber(), randomNumber()];
    const out = await call(server, "POST", `/api/admin/accounts/${account.accountId}/opt/numbers`, {
      headers: account.headers,
      body: { number: phones[0], action: "out" },
    });
    expect(out.status, out.text).toBe(200);
    const res = await call(server, "POST", "/v3/campaigns", {
      headers: account.headers,
      body: {
        accountId: account.accountId,
        name: "Fits",
        body: "Doors open at 6",
        fromNumbers: account.numbers,
        audience: { numbers: phones },
      },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.json.data.campaign.counts).toMatchObject({ optedOut: 1 });
    expect((await dashboard(account)).guard.usage.messages).toEqual({ used: 3, max: 5 });
  });
});

describe("the SMS pumping defence", () => {
  it("holds a burst to an unusual range for review; released messages leave, cancelled ones never do", async () => {
    const account = await newAccount({ allowedCountries: ["*"], burstHoldThreshold: 3 }, true);
    const numbers = Array.from({ length: 5 }, sierraLeone);
    const sent = await entries(account, { toArray: numbers, bulk: false });
    expect(sent.map((e) => e.status)).toEqual(["accepted", "accepted", "accepted", "accepted", "accepted"]);
    const held = sent.slice(3);
    for (const entry of sent.slice(0, 3)) await waitForSdrs(server, account, entry.messageId, has("delivered"));
    for (const entry of held) {
      expect(await statusOf(account, entry.messageId)).toBe("held");
      const records = await sdrs(account, entry.messageId);
      expect(statuses(records)).toEqual(["accepted", "held"]);
      expect(records[1]!.statusDetails).toMatch(
        /^held for review: [45] messages to \+232761… within 10 minutes \(more than 3\); release or cancel it on the dashboard$/,
      );
    }
    expect((await listed(account, "&status=held")).map((m) => m.messageId).sort()).toEqual(
      held.map((e) => e.messageId).sort(),
    );
    // Domestic traffic is not counted.
    const [home] = await entries(account, { to: randomNumber() });
    expect(await statusOf(account, home!.messageId)).not.toBe("held");

    const board = await dashboard(account);
    expect(board.guard.held).toEqual([
      expect.objectContaining({ prefix: "+232761", country: "SL", messages: 2, segments: 2 }),
    ]);
    const release = await call(server, "POST", `/api/admin/accounts/${account.accountId}/held`, {
      headers: account.headers,
      body: { prefix: "+232761", action: "release" },
    });
    expect(release.status, release.text).toBe(200);
    expect(release.json.data.review).toEqual({ prefix: "+232761", action: "release", messages: 2 });
    for (const entry of held) {
      const records = await waitForSdrs(server, account, entry.messageId, has("delivered"));
      expect(statuses(records).slice(0, 3)).toEqual(["accepted", "held", "queued"]);
      expect(records[2]!.statusDetails).toBe("released after review by the API");
    }
    expect((await dashboard(account)).guard.held).toEqual([]);

    // The burst goes on (within the ten minutes): the next ones are held again, and this time cancelled.
    const [again] = await entries(account, { to: sierraLeone() });
    expect(await statusOf(account, again!.messageId)).toBe("held");
    const cancel = await call(server, "POST", `/api/admin/accounts/${account.accountId}/held`, {
      headers: account.headers,
      body: { prefix: "232761", action: "cancel" },
    });
    expect(cancel.json.data.review.messages).toBe(1);
    expect(await statusOf(account, again!.messageId)).toBe("cancelled");
    const event = await receiver.waitFor((r) => r.json.messageId === again!.messageId);
    expect(event.json).toMatchObject({ status: "cancelled" });
    const none = await call(server, "POST", `/api/admin/accounts/${account.accountId}/held`, {
      headers: account.headers,
      body: { prefix: "+232761", action: "cancel" },
    });
    expect(none.status).toBe(404);
    const bad = await call(server, "POST", `/api/admin/accounts/${account.accountId}/held`, {
      headers: account.headers,
      body: { prefix: "+232761", action: "delete" },
    });
    expect(bad.status).toBe(400);
    expect(bad.json.data.field).toBe("action");
  });

  it("counts premium-rate numbers at home too, and a held code still expires with its validity", async () => {
    const account = await newAccount({ burstHoldThreshold: 2 });
    const sent = await entries(account, { toArray: [premiumUs(), premiumUs(), premiumUs()], validitySeconds: 60 });
    const last = sent[2]!;
    expect(await statusOf(account, last.messageId)).toBe("held");
    // The code's minute passes while it is held: it ends expired, never sent.
    await bindTo(server);
    await db().message.update({ where: { id: last.messageId }, data: { validUntil: new Date(Date.now() + 500) } });
    const records = await waitForSdrs(server, account, last.messageId, has("expired"), 10_000);
    expect(statuses(records)).toEqual(["accepted", "held", "expired"]);
    expect(await statusOf(account, last.messageId)).toBe("expired");

    // A message held can be cancelled on its own too.
    const [next] = await entries(account, { to: premiumUs() });
    const res = await call(server, "POST", `/v3/messages/${next!.messageId}/cancel`, { headers: account.headers });
    expect(res.status, res.text).toBe(200);
    expect(await statusOf(account, next!.messageId)).toBe("cancelled");
  });

  it("gives a cancelled burst's share of the daily limit back, so real sends are not refused for it", async () => {
    const account = await newAccount({ allowedCountries: ["*"], burstHoldThreshold: 2, dailyMessageLimit: 6 });
    await entries(account, { toArray: Array.from({ length: 5 }, sierraLeone), bulk: false });
    expect((await dashboard(account)).guard.usage.messages).toEqual({ used: 5, max: 6 });
    const cancel = await call(server, "POST", `/api/admin/accounts/${account.accountId}/held`, {
      headers: account.headers,
      body: { prefix: "+232761", action: "cancel" },
    });
    expect(cancel.json.data.review.messages).toBe(3);
    expect((await dashboard(account)).guard.usage.messages).toEqual({ used: 2, max: 6 });
    expect(await entries(account, { toArray: [randomNumber(), randomNumber(), randomNumber()] })).toHaveLength(3);
  });

  it("holds a campaign's burst too; cancelling the campaign cancels its held messages", async () => {
    const account = await newAccount({ allowedCountries: ["*"], burstHoldThreshold: 1 });
    const res = await call(server, "POST", "/v3/campaigns", {
      headers: account.headers,
      body: {
        accountId: account.accountId,
        name: "Abroad",
        body: "Our new branch is open",
        fromNumbers: account.numbers,
        audience: { numbers: [sierraLeone(), sierraLeone(), sierraLeone()] },
      },
    });
    expect(res.status, res.text).toBe(200);
    const id = res.json.data.campaign.id;
    expect(res.json.data.campaign.counts).toMatchObject({ held: 2 });
    const cancelled = await call(server, "POST", `/v3/campaigns/${id}/cancel`, { headers: account.headers });
    expect(cancelled.status, cancelled.text).toBe(200);
    expect(cancelled.json.data.campaign.counts).toMatchObject({ held: 0 });
    expect(await listed(account, "&status=held")).toEqual([]);
    expect((await dashboard(account)).guard.held).toEqual([]);
  });

  it("holds nothing with the threshold at 0", async () => {
    const account = await newAccount({ allowedCountries: ["*"], burstHoldThreshold: 0 });
    const sent = await entries(account, { toArray: Array.from({ length: 4 }, sierraLeone), bulk: false });
    for (const entry of sent) expect(await statusOf(account, entry.messageId)).not.toBe("held");
  });
});
