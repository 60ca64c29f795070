import { afterAll, beforeAll, describe, expect, it } from "vitest";
import Telnyx from "telnyx";
import { startServer, type RunningServer } from "../helpers/server";
import { call, createTestAccount, randomNumber, releaseFactories, type TestAccount } from "../helpers/factories";
import { startFakeTelnyx, type FakeTelnyx } from "../helpers/fake-telnyx";
import { has, waitForSdrs, waitUntil } from "../helpers/wait-for";
import { startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver";
import { PARLEY_MEDIA, readFittedImage, readMedium, startMmsPictures, type MmsPictures } from "../helpers/mms-pictures";

// A Telnyx connection end to end: a number provisioned through POST /v3/numbers straight onto the connection, SMS
// and MMS sent to /v2/messages with webhook_url, Ed25519-signed webhooks (message.finalized, message.received) coming
// back, and the ones that are stale, unsigned or signed by another key refused. An MMS's pictures are on a real
// HTTP server on loopback, and Parley keeps its own copies of them both ways.

let server: RunningServer;
let telnyx: FakeTelnyx;
let account: TestAccount;
let connection: { id: string; statusUrl: string; inboundUrl: string };
let from: string;
let receiver: WebhookReceiver;
let pictures: MmsPictures;

beforeAll(async () => {
  pictures = await startMmsPictures();
  telnyx = await startFakeTelnyx();
  receiver = await startWebhookReceiver();
  server = await startServer({
    env: { PARLEY_WORKER: "true", WORKER_POLL_MS: "20", WEBHOOK_ALLOW_PRIVATE: "true", WEBHOOK_POLL_MS: "50" },
  });
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
  const hook = await call(server, "PUT", `/api/admin/accounts/${account.accountId}/webhook`, {
    headers: account.headers,
    body: { url: receiver.url },
  });
  expect(hook.status, hook.text).toBe(200);
}, 120_000);

afterAll(async () => {
  await releaseFactories();
  await server?.stop();
  await telnyx?.close();
  await receiver?.close();
  await pictures?.stop();
});

async function send(body: Record<string, unknown>): Promise<string> {
  const res = await call(server, "POST", "/v3/messages", {
    headers: account.headers,
    body: { accountId: account.accountId, from, ...body },
  });
  expect(res.status, res.text).toBe(200);
  return res.json.data.messageInfo[0].messageId as string;
}

async function sendOf(to: string, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = telnyx.sent.find((s) => s.body.to === `+${to}`);
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`no Telnyx send to +${to}: ${telnyx.mistakes.join("; ")}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function listed(query: string) {
  const res = await call(server, "GET", `/v3/messages?accountId=${account.accountId}&${query}`, {
    headers: account.headers,
  });
  return res.json.data.results as { messageId: string; messageType: string; body: string; media: string[] }[];
}

/** A message.received event from `phone` naming `media`, as Telnyx posts it. */
const received = (phone: string, text: string, media: { url: string; content_type: string }[]) => ({
  event_type: "message.received",
  payload: {
    id: crypto.randomUUID(),
    direction: "inbound",
    from: { phone_number: `+${phone}` },
    to: [{ phone_number: `+${from}`, status: "webhook_delivered" }],
    text,
    media,
    parts: 1,
  },
});

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
    const mms = await send({ to: mmsTo, body: "Your receipt", media: [pictures.largePngUrl, pictures.smallJpegUrl] });
    const [a, b] = [await sendOf(smsTo), await sendOf(mmsTo, 60_000)];
    expect(a.body).toEqual({
      from: `+${from}`,
      to: `+${smsTo}`,
      text: "Your prescription is ready",
      webhook_url: connection.statusUrl,
      use_profile_webhooks: false,
      messaging_profile_id: "prof-1",
    });
    // Parley's copies, fitted: the 4000×3000 PNG of several MB resized under 600 KB, the small photo as it was.
    const mediaUrls = b.body.media_urls as string[];
    expect(b.body).toMatchObject({ text: "Your receipt", media_urls: [expect.any(String), expect.any(String)] });
    const large = await readFittedImage(mediaUrls[0]!);
    expect(large.bytes.length).toBeLessThan(pictures.largePngSize);
    expect(large.metadata.width).toBeLessThan(4000);
    expect((await readFittedImage(mediaUrls[1]!)).metadata).toMatchObject({ format: "jpeg", width: 320, height: 240 });
    expect((await listed(`to=${mmsTo}`))[0]?.media).toEqual(mediaUrls);
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
  }, 90_000);

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

  it("receives an MMS (message.received) once, however often it is posted, with Parley's copy of its picture", async () => {
    const phone = randomNumber();
    const event = received(phone, "Is this the right dose?", [
      { url: telnyx.offerMedia(pictures.smallJpeg, "image/jpeg"), content_type: "image/jpeg" },
    ]);
    expect((await telnyx.webhook(connection.inboundUrl, event)).status).toBe(200);
    expect((await telnyx.webhook(connection.inboundUrl, event)).status).toBe(200);
    const hook = await receiver.waitFor((r) => r.json.from === phone);
    expect(hook.json).toMatchObject({ body: "Is this the right dose?", media: [expect.stringMatching(PARLEY_MEDIA)] });
    const results = await listed(`from=${phone}`);
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({ messageType: "mms", body: "Is this the right dose?", media: hook.json.media });
    const copy = await readMedium(results[0]!.media[0]!);
    expect(copy.status).toBe(200);
    expect(copy.contentType).toBe("image/jpeg");
    expect(copy.bytes.equals(pictures.smallJpeg)).toBe(true);
    // A copy, not a proxy: once Telnyx's link has expired, Parley still answers it, without asking Telnyx again.
    telnyx.forgetMedia();
    const asked = telnyx.mediaRequests.length;
    const later = await readMedium(results[0]!.media[0]!);
    expect(later.status).toBe(200);
    expect(later.bytes.equals(pictures.smallJpeg)).toBe(true);
    expect(telnyx.mediaRequests.length).toBe(asked);
  });

  it("keeps an MMS whose picture Telnyx no longer has: its text is listed, its medium answers 404", async () => {
    const phone = randomNumber();
    const event = received(phone, "Sent you a photo", [{ url: telnyx.missingMediaUrl(), content_type: "image/jpeg" }]);
    expect((await telnyx.webhook(connection.inboundUrl, event)).status).toBe(200);
    const message = await waitUntil(
      "the message listed",
      async () => (await listed(`from=${phone}`))[0] ?? null,
      10_000,
    );
    expect(message).toMatchObject({
      messageType: "mms",
      body: "Sent you a photo",
      media: [expect.stringMatching(PARLEY_MEDIA)],
    });
    const medium = await readMedium(message.media[0]!);
    expect(medium.status).toBe(404);
    expect(medium.text).toBe("Attachment unavailable.\n");
  });
});
