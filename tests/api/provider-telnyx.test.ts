import { afterAll, beforeAll, describe, expect, it } from "vitest";
import Telnyx from "telnyx";
import { startServer, type RunningServer } from "../helpers/server";
import { call, createTestAccount, randomNumber, releaseFactories, type TestAccount } from "../helpers/factories";
import { startFakeTelnyx, type FakeTelnyx } from "../helpers/fake-telnyx";
import { has, waitForSdrs } from "../helpers/wait-for";

// A Telnyx connection end to end: a number provisioned through POST /v3/numbers straight onto the connection, SMS
// and MMS sent to /v2/messages with webhook_url, Ed25519-signed webhooks (message.finalized, message.received) coming
// back, and the ones that are stale, unsigned or signed by another key refused.

let server: RunningServer;
let telnyx: FakeTelnyx;
let account: TestAccount;
let connection: { id: string; statusUrl: string; inboundUrl: string };
let from: string;

beforeAll(async () => {
  telnyx = await startFakeTelnyx();
  server = await startServer({ env: { PARLEY_WORKER: "true", WORKER_POLL_MS: "20" } });
  account = await createTestAccount(server, { numbers: 1, rateLimitPerSecond: 20 });
  const added = await call(server, "POST", `/api/admin/accounts/${account.accountId}/carriers`, {
    headers: account.headers,
    body: {
      type: "telnyx",
      name: "telnyx",
      fields: { apiKey: telnyx.apiKey, publicKey: telnyx.publicKey, messagingProfileId: "prof-1", apiUrl: telnyx.url },
    },
  });
  expect(added.status, added.text).toBe(200);
  connection = added.json.data.carrier;
  from = randomNumber();
  const provisioned = await call(server, "POST", "/v3/numbers", {
    headers: account.headers,
    body: { accountId: account.accountId, number: `+${from}`, carrier: "telnyx" },
  });
  expect(provisioned.status, provisioned.text).toBe(200);
  expect(provisioned.json.data).toMatchObject({ number: from, carrier: "telnyx", created: true });
}, 120_000);

afterAll(async () => {
  await releaseFactories();
  await server?.stop();
  await telnyx?.close();
});

async function send(body: Record<string, unknown>): Promise<string> {
  const res = await call(server, "POST", "/v3/messages", {
    headers: account.headers,
    body: { accountId: account.accountId, from, ...body },
  });
  expect(res.status, res.text).toBe(200);
  return res.json.data.messageInfo[0].messageId as string;
}

async function sendOf(to: string) {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const found = telnyx.sent.find((s) => s.body.to === `+${to}`);
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`no Telnyx send to +${to}: ${telnyx.mistakes.join("; ")}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const finalized = (id: string, to: string, status: string, errors: unknown[] = []) => ({
  event_type: "message.finalized",
  payload: { id, to: [{ phone_number: `+${to}`, status }], from: { phone_number: `+${from}` }, errors },
});

describe("a Telnyx connection", () => {
  it("signs its stand-in's webhooks as Telnyx does: the official SDK accepts them", async () => {
    const { body, headers } = telnyx.signed(finalized("x", "1", "delivered"));
    const client = new Telnyx({ apiKey: telnyx.apiKey });
    const event = await client.webhooks.unwrap(body, { headers, key: telnyx.publicKey });
    expect(event).toMatchObject({ data: { event_type: "message.finalized" } });
  });

  it("is tested against Telnyx's balance", async () => {
    const res = await call(server, "POST", `/api/admin/accounts/${account.accountId}/carriers/telnyx/test`, {
      headers: account.headers,
    });
    expect(res.json.data).toMatchObject({
      ok: true,
      words: "Telnyx answers: balance 300.00 USD, available credit 400.00 USD.",
    });
  });

  it("sends SMS and MMS to /v2/messages with webhook_url, and a signed message.finalized settles them", async () => {
    const [smsTo, mmsTo] = [randomNumber(), randomNumber()];
    const sms = await send({ to: smsTo, body: "Your prescription is ready" });
    const mms = await send({ to: mmsTo, body: "Your receipt", media: ["https://example.com/receipt.png"] });
    const [a, b] = [await sendOf(smsTo), await sendOf(mmsTo)];
    expect(a.body).toEqual({
      from: `+${from}`,
      to: `+${smsTo}`,
      text: "Your prescription is ready",
      webhook_url: connection.statusUrl,
      use_profile_webhooks: false,
      messaging_profile_id: "prof-1",
    });
    expect(b.body).toMatchObject({ text: "Your receipt", media_urls: ["https://example.com/receipt.png"] });
    await waitForSdrs(server, account, sms, has("wait_dlr"));
    await waitForSdrs(server, account, mms, has("wait_dlr"));
    expect((await telnyx.webhook(connection.statusUrl, finalized(a.id, smsTo, "delivered"))).status).toBe(200);
    const failure = [{ code: "40008", title: "Undeliverable", detail: "The destination is unreachable" }];
    expect(
      (await telnyx.webhook(connection.statusUrl, finalized(b.id, mmsTo, "delivery_failed", failure))).status,
    ).toBe(200);
    const smsRecords = await waitForSdrs(server, account, sms, has("dlr_received"));
    expect(smsRecords.find((r) => r.status === "delivered")!.statusDetails).toBe("telnyx delivered");
    const mmsRecords = await waitForSdrs(server, account, mms, has("dlr_received"));
    expect(mmsRecords.find((r) => r.status === "undelivered")!.statusDetails).toBe(
      "telnyx 40008: Undeliverable: The destination is unreachable",
    );
  });

  it("refuses stale, unsigned, tampered and wrongly keyed webhooks with 403", async () => {
    const to = randomNumber();
    const messageId = await send({ to, body: "Code 9876" });
    const sent = await sendOf(to);
    await waitForSdrs(server, account, messageId, has("wait_dlr"));
    const event = finalized(sent.id, to, "delivered");
    const stale = Math.floor(Date.now() / 1000) - 301;
    expect((await telnyx.webhook(connection.statusUrl, event, { timestamp: stale })).status).toBe(403);
    expect((await telnyx.webhook(connection.statusUrl, event, { signature: null })).status).toBe(403);
    const tampered = JSON.stringify({ data: { ...event, payload: { ...event.payload, id: sent.id } } });
    expect((await telnyx.webhook(connection.statusUrl, event, { body: tampered })).status).toBe(403);
    const other = await startFakeTelnyx();
    try {
      expect((await other.webhook(connection.statusUrl, event)).status).toBe(403);
    } finally {
      await other.close();
    }
    const records = await waitForSdrs(server, account, messageId, () => true);
    expect(records.some((r) => r.status === "delivered")).toBe(false);
  });

  it("receives an MMS (message.received) once, however often it is posted", async () => {
    const phone = randomNumber();
    const received = {
      event_type: "message.received",
      payload: {
        id: "b0f1c3e2-0000-4000-8000-000000000001",
        direction: "inbound",
        from: { phone_number: `+${phone}` },
        to: [{ phone_number: `+${from}`, status: "webhook_delivered" }],
        text: "Is this the right dose?",
        media: [{ url: "https://media.telnyx.example/dose.jpg", content_type: "image/jpeg" }],
        parts: 1,
      },
    };
    expect((await telnyx.webhook(connection.inboundUrl, received)).status).toBe(200);
    expect((await telnyx.webhook(connection.inboundUrl, received)).status).toBe(200);
    const res = await call(server, "GET", `/v3/messages?accountId=${account.accountId}&from=${phone}`, {
      headers: account.headers,
    });
    expect(res.json.data.results).toHaveLength(1);
    expect(res.json.data.results[0]).toMatchObject({
      messageType: "mms",
      body: "Is this the right dose?",
      media: ["https://media.telnyx.example/dose.jpg"],
    });
  });
});
