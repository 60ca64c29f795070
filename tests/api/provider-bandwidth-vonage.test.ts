import { createHash, createHmac } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../helpers/server";
import { call, createTestAccount, randomNumber, releaseFactories, type TestAccount } from "../helpers/factories";
import { startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver";
import { has, waitForSdrs, waitUntil } from "../helpers/wait-for";
import { startFakeBandwidth, type FakeBandwidth } from "../helpers/fake-bandwidth";
import { startFakeVonage, type FakeVonage } from "../helpers/fake-vonage";
import { PARLEY_MEDIA, readFittedImage, readMedium, startMmsPictures, type MmsPictures } from "../helpers/mms-pictures";

// Bandwidth's and Vonage's loops end to end: send → the provider's request (held to its published API: path, auth,
// JSON field names) → its status callback (Bandwidth's Basic credentials, Vonage's signed JWT) → SDRs; an inbound MMS
// → the listing; a callback with wrong credentials changes nothing. Each provider is a real HTTP server here, and
// so is the one offering the pictures an MMS names: Parley sends its own fitted copies and keeps copies of what
// comes in.

let server: RunningServer;
let bandwidth: FakeBandwidth;
let vonage: FakeVonage;
let receiver: WebhookReceiver;
let pictures: MmsPictures;
let account: TestAccount;
const connections: Record<string, { id: string; statusUrl: string; inboundUrl: string }> = {};
const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`;
const SIGNATURE_SECRET = "vonage-signature-secret-0123456789";
const b64url = (value: string | Buffer) => Buffer.from(value).toString("base64url");

/** A Vonage signed-webhook token: HS256 with the signature secret, the body's SHA-256 as payload_hash. */
function vonageToken(body: string, secret = SIGNATURE_SECRET, iat = Math.floor(Date.now() / 1000)): string {
  const header = b64url(JSON.stringify({ alg: "HS256", typ: "JWT" }));
  const claims = b64url(
    JSON.stringify({
      iat,
      jti: crypto.randomUUID(),
      iss: "Vonage",
      payload_hash: createHash("sha256").update(body).digest("hex"),
    }),
  );
  return `${header}.${claims}.${createHmac("sha256", secret).update(`${header}.${claims}`).digest("base64url")}`;
}

beforeAll(async () => {
  pictures = await startMmsPictures();
  bandwidth = await startFakeBandwidth({ accountId: "9900001", clientId: "client-id", clientSecret: "client-secret" });
  vonage = await startFakeVonage({ apiKey: "vkey", apiSecret: "vsecret" });
  receiver = await startWebhookReceiver();
  server = await startServer({
    env: { PARLEY_WORKER: "true", WORKER_POLL_MS: "20", WEBHOOK_ALLOW_PRIVATE: "true", WEBHOOK_POLL_MS: "50" },
  });
  account = await createTestAccount(server, { numbers: 2, rateLimitPerSecond: 20 });
  const add = async (name: string, type: string, fields: Record<string, string>, number: string) => {
    const res = await call(server, "POST", `/api/admin/accounts/${account.accountId}/carriers`, {
      headers: account.headers,
      body: { type, name, fields },
    });
    expect(res.status, res.text).toBe(200);
    connections[type] = res.json.data.carrier;
    const routed = await call(server, "PATCH", `/api/admin/accounts/${account.accountId}/numbers/${number}`, {
      headers: account.headers,
      body: { carrier: name },
    });
    expect(routed.status, routed.text).toBe(200);
  };
  await add("bw", "bandwidth", {
    accountId: "9900001",
    username: "client-id",
    password: "client-secret",
    applicationId: "app-1",
    callbackUsername: "cb-user",
    callbackPassword: "cb-password-123",
    apiUrl: bandwidth.url,
  }, account.numbers[0]!); // prettier-ignore
  await add(
    "vonage",
    "vonage",
    { apiKey: "vkey", apiSecret: "vsecret", signatureSecret: SIGNATURE_SECRET, apiUrl: vonage.url },
    account.numbers[1]!,
  );
  const hook = await call(server, "PUT", `/api/admin/accounts/${account.accountId}/webhook`, {
    headers: account.headers,
    body: { url: receiver.url },
  });
  expect(hook.status, hook.text).toBe(200);
}, 120_000);

afterAll(async () => {
  await releaseFactories();
  await server?.stop();
  await bandwidth?.close();
  await vonage?.close();
  await receiver?.close();
  await pictures?.stop();
});

async function send(from: string, body: Record<string, unknown>): Promise<string> {
  const res = await call(server, "POST", "/v3/messages", {
    headers: account.headers,
    body: { accountId: account.accountId, from, ...body },
  });
  expect(res.status, res.text).toBe(200);
  return res.json.data.messageInfo[0].messageId as string;
}

async function inboundListed(phone: string) {
  return waitUntil(
    `an inbound message from ${phone}`,
    async () => {
      const res = await call(server, "GET", `/v3/messages?accountId=${account.accountId}&from=${phone}`, {
        headers: account.headers,
      });
      return res.json.data.results.length > 0 ? res.json.data.results : null;
    },
    5_000,
  );
}

async function listedTo(to: string) {
  const res = await call(server, "GET", `/v3/messages?accountId=${account.accountId}&to=${to}`, {
    headers: account.headers,
  });
  return res.json.data.results[0] as { media: string[] } | undefined;
}

/** Posts a message-received callback from `phone` naming `media`, with the callback credentials. */
function bandwidthInbound(phone: string, text: string, media: string[]) {
  return fetch(connections.bandwidth!.inboundUrl, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: basic("cb-user", "cb-password-123") },
    body: JSON.stringify([
      {
        type: "message-received",
        time: new Date().toISOString(),
        description: "Incoming message received",
        to: `+${account.numbers[0]}`,
        message: {
          id: `1476${crypto.randomUUID().replaceAll("-", "").slice(0, 24)}`,
          from: `+${phone}`,
          to: [`+${account.numbers[0]}`],
          text,
          media,
          segmentCount: 1,
        },
      },
    ]),
  });
}

/** Posts a signed inbound MMS (message_type image) from `phone`, as Vonage does. */
function vonageInbound(phone: string, caption: string, url: string) {
  const body = JSON.stringify({
    channel: "mms",
    message_uuid: crypto.randomUUID(),
    to: account.numbers[1],
    from: phone,
    timestamp: new Date().toISOString(),
    message_type: "image",
    image: { url, caption },
  });
  return fetch(connections.vonage!.inboundUrl, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${vonageToken(body)}` },
    body,
  });
}

/**
 * The inbound MMS from `phone`, once listed with its text and Parley's address of its picture, also named by the
 * customer's webhook; answers that address.
 */
async function expectKeptInbound(phone: string, text: string): Promise<string> {
  const [message] = await inboundListed(phone);
  expect(message).toMatchObject({ messageType: "mms", body: text, media: [expect.stringMatching(PARLEY_MEDIA)] });
  const hook = await receiver.waitFor((r) => r.json.from === phone);
  expect(hook.json.media).toEqual(message.media);
  return message.media[0] as string;
}

describe("a Bandwidth connection", () => {
  it("sends an MMS to the Messaging API v2 with Parley's fitted copies, and a message-delivered callback with the callback credentials settles it", async () => {
    const from = account.numbers[0]!;
    const to = randomNumber();
    const messageId = await send(from, {
      to,
      body: "Your X-ray",
      media: [pictures.largePngUrl, pictures.smallJpegUrl],
    });
    const request = await bandwidth.waitFor((r) => r.path === "/api/v2/users/9900001/messages", 60_000);
    expect(request.headers["content-type"]).toMatch(/^application\/json/);
    expect(request.json).toEqual({
      applicationId: "app-1",
      to: [`+${to}`],
      from: `+${from}`,
      tag: messageId,
      text: "Your X-ray",
      media: [expect.stringMatching(PARLEY_MEDIA), expect.stringMatching(PARLEY_MEDIA)],
    });
    const media = request.json.media as string[];
    const large = await readFittedImage(media[0]!);
    expect(large.bytes.length).toBeLessThan(pictures.largePngSize);
    expect(large.metadata.width).toBeLessThan(4000);
    expect((await readFittedImage(media[1]!)).metadata).toMatchObject({ format: "jpeg", width: 320, height: 240 });
    expect((await listedTo(to))?.media).toEqual(media);
    await waitForSdrs(server, account, messageId, has("wait_dlr"));
    const id = await providerIdOf(messageId);
    const event = JSON.stringify([
      {
        type: "message-delivered",
        time: new Date().toISOString(),
        description: "ok",
        to: `+${to}`,
        message: { id, tag: messageId },
      },
    ]);
    const post = (authorization?: string) =>
      fetch(connections.bandwidth!.statusUrl, {
        method: "POST",
        headers: { "content-type": "application/json", ...(authorization ? { authorization } : {}) },
        body: event,
      });
    const challenged = await post();
    expect(challenged.status).toBe(401);
    expect(challenged.headers.get("www-authenticate")).toMatch(/^Basic /);
    expect((await post(basic("cb-user", "wrong"))).status).toBe(403);
    expect((await post(basic("cb-user", "cb-password-123"))).status).toBe(200);
    const records = await waitForSdrs(server, account, messageId, has("dlr_received"));
    expect(records.find((r) => r.status === "delivered")!.statusDetails).toBe("bandwidth delivered");
  }, 90_000);

  it("receives an MMS from a message-received callback, and keeps its own copy of the picture", async () => {
    const phone = randomNumber();
    const photo = bandwidth.offerMedia("photo.jpg", pictures.smallJpeg, "image/jpeg");
    expect((await bandwidthInbound(phone, "Thanks!", [photo])).status).toBe(200);
    const url = await expectKeptInbound(phone, "Thanks!");
    const copy = await readMedium(url);
    expect(copy.status).toBe(200);
    expect(copy.contentType).toBe("image/jpeg");
    expect(copy.bytes.equals(pictures.smallJpeg)).toBe(true);
    // Bandwidth's media need the API credentials; Parley gave them.
    const path = new URL(photo).pathname;
    expect(bandwidth.mediaRequests.filter((r) => r.path === path).map((r) => r.headers.authorization)).toContain(
      basic("client-id", "client-secret"),
    );
    // A copy, not a proxy: once Bandwidth has deleted the medium, Parley still answers it without asking again.
    bandwidth.forgetMedia();
    const asked = bandwidth.mediaRequests.length;
    const later = await readMedium(url);
    expect(later.status).toBe(200);
    expect(later.bytes.equals(pictures.smallJpeg)).toBe(true);
    expect(bandwidth.mediaRequests.length).toBe(asked);
  });

  it("keeps an MMS whose picture Bandwidth no longer has: its text is listed, its medium answers 404", async () => {
    const phone = randomNumber();
    expect((await bandwidthInbound(phone, "Did it arrive?", [bandwidth.missingMediaUrl()])).status).toBe(200);
    const medium = await readMedium(await expectKeptInbound(phone, "Did it arrive?"));
    expect(medium.status).toBe(404);
    expect(medium.text).toBe("Attachment unavailable.\n");
  });
});

describe("a Vonage connection", () => {
  it("sends an SMS to the Messages API with webhook_url, and a signed status callback settles it", async () => {
    const from = account.numbers[1]!;
    const to = randomNumber();
    const messageId = await send(from, { to, body: "Your delivery arrives today" });
    const request = await vonage.waitFor((r) => r.path === "/v1/messages" && r.json.to === to);
    expect(request.json).toEqual({
      to,
      from,
      client_ref: messageId,
      webhook_url: connections.vonage!.statusUrl,
      channel: "sms",
      message_type: "text",
      text: "Your delivery arrives today",
    });
    await waitForSdrs(server, account, messageId, has("wait_dlr"));
    const body = JSON.stringify({
      message_uuid: await providerIdOf(messageId),
      to,
      from,
      timestamp: new Date().toISOString(),
      status: "delivered",
      channel: "sms",
      client_ref: messageId,
    });
    const post = (token: string, payload = body) =>
      fetch(connections.vonage!.statusUrl, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
        body: payload,
      });
    expect((await post(vonageToken(body, "another-secret-0123456789"))).status).toBe(403);
    expect((await post(vonageToken(body, SIGNATURE_SECRET, Math.floor(Date.now() / 1000) - 600))).status).toBe(403);
    expect((await post(vonageToken(body), body.replace("delivered", "rejected"))).status).toBe(403);
    expect((await post(vonageToken(body))).status).toBe(200);
    const records = await waitForSdrs(server, account, messageId, has("dlr_received"));
    expect(records.find((r) => r.status === "delivered")!.statusDetails).toBe("vonage delivered");
  });

  it("sends an MMS as one image message: Parley's fitted copy of the first picture, the text as its caption", async () => {
    const from = account.numbers[1]!;
    const to = randomNumber();
    const messageId = await send(from, { to, body: "Your parcel", media: [pictures.largePngUrl] });
    const request = await vonage.waitFor((r) => r.path === "/v1/messages" && r.json.to === to, 60_000);
    expect(request.json).toEqual({
      to,
      from,
      client_ref: messageId,
      webhook_url: connections.vonage!.statusUrl,
      channel: "mms",
      message_type: "image",
      image: { url: expect.stringMatching(PARLEY_MEDIA), caption: "Your parcel" },
    });
    const picture = await readFittedImage(request.json.image.url as string);
    expect(picture.bytes.length).toBeLessThan(pictures.largePngSize);
    expect(picture.metadata.width).toBeLessThan(4000);
    expect((await listedTo(to))?.media).toEqual([request.json.image.url]);
  }, 90_000);

  it("receives an MMS (message_type image) from a signed inbound callback, and keeps its own copy of the picture", async () => {
    const phone = randomNumber();
    expect(
      (await vonageInbound(phone, "Left at the door?", vonage.offerMedia(pictures.smallJpeg, "image/jpeg"))).status,
    ).toBe(200);
    const url = await expectKeptInbound(phone, "Left at the door?");
    const copy = await readMedium(url);
    expect(copy.status).toBe(200);
    expect(copy.contentType).toBe("image/jpeg");
    expect(copy.bytes.equals(pictures.smallJpeg)).toBe(true);
    vonage.forgetMedia();
    const asked = vonage.mediaRequests.length;
    const later = await readMedium(url);
    expect(later.status).toBe(200);
    expect(later.bytes.equals(pictures.smallJpeg)).toBe(true);
    expect(vonage.mediaRequests.length).toBe(asked);
  });

  it("keeps an MMS whose picture Vonage no longer has: its caption is listed, its medium answers 404", async () => {
    const phone = randomNumber();
    expect((await vonageInbound(phone, "Which door?", vonage.missingMediaUrl())).status).toBe(200);
    const medium = await readMedium(await expectKeptInbound(phone, "Which door?"));
    expect(medium.status).toBe(404);
    expect(medium.text).toBe("Attachment unavailable.\n");
  });
});

/** The provider's id Parley kept for a message (its first part's carrier id), as the stand-in answered the send. */
async function providerIdOf(messageId: string): Promise<string> {
  const { bindTo } = await import("../helpers/factories");
  const { db } = await import("@/lib/db/client");
  await bindTo(server);
  const part = await db().messagePart.findFirstOrThrow({ where: { messageId, segmentNumber: 1 } });
  return part.carrierMessageId;
}
