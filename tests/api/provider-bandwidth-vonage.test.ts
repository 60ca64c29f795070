import { createHash, createHmac } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../helpers/server";
import { call, createTestAccount, randomNumber, releaseFactories, type TestAccount } from "../helpers/factories";
import { startWebhookReceiver, type ReceivedRequest, type WebhookReceiver } from "../helpers/webhook-receiver";
import { has, waitForSdrs, waitUntil } from "../helpers/wait-for";

// Bandwidth's and Vonage's loops end to end: send → the provider's request (held to its published API: path, auth,
// JSON field names) → its status callback (Bandwidth's Basic credentials, Vonage's signed JWT) → SDRs; an inbound MMS
// → the listing; a callback with wrong credentials changes nothing. Each provider is a real HTTP server here.

let server: RunningServer;
let bandwidth: WebhookReceiver;
let vonage: WebhookReceiver;
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
  bandwidth = await startWebhookReceiver();
  let n = 0;
  bandwidth.respond = (r: ReceivedRequest) => {
    if (r.path === "/api/v1/oauth2/token")
      return r.headers.authorization === basic("client-id", "client-secret") &&
        r.body === "grant_type=client_credentials"
        ? {
            status: 200,
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ access_token: "bw-token", expires_in: 3600 }),
          }
        : { status: 401, body: "{}" };
    if (
      r.path === "/api/v2/users/9900001/messages" &&
      r.method === "POST" &&
      r.headers.authorization === "Bearer bw-token"
    )
      return {
        status: 202,
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ id: `16${++n}bw`, owner: r.json.from }),
      };
    return { status: 404, body: JSON.stringify({ type: "not-found", description: `${r.method} ${r.path}` }) };
  };
  vonage = await startWebhookReceiver();
  vonage.respond = (r: ReceivedRequest) =>
    r.path === "/v1/messages" && r.method === "POST" && r.headers.authorization === basic("vkey", "vsecret")
      ? {
          status: 202,
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ message_uuid: crypto.randomUUID() }),
        }
      : { status: 401, body: JSON.stringify({ title: "Unauthorized" }) };
  server = await startServer({ env: { PARLEY_WORKER: "true", WORKER_POLL_MS: "20" } });
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
    apiUrl: new URL(bandwidth.url).origin,
  }, account.numbers[0]!); // prettier-ignore
  await add(
    "vonage",
    "vonage",
    { apiKey: "vkey", apiSecret: "vsecret", signatureSecret: SIGNATURE_SECRET, apiUrl: new URL(vonage.url).origin },
    account.numbers[1]!,
  );
}, 120_000);

afterAll(async () => {
  await releaseFactories();
  await server?.stop();
  await bandwidth?.close();
  await vonage?.close();
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

describe("a Bandwidth connection", () => {
  it("sends an MMS to the Messaging API v2, and a message-delivered callback with the callback credentials settles it", async () => {
    const from = account.numbers[0]!;
    const to = randomNumber();
    const messageId = await send(from, { to, body: "Your X-ray", media: ["https://example.com/xray.png"] });
    const request = await bandwidth.waitFor((r) => r.path === "/api/v2/users/9900001/messages");
    expect(request.headers["content-type"]).toMatch(/^application\/json/);
    expect(request.json).toEqual({
      applicationId: "app-1",
      to: [`+${to}`],
      from: `+${from}`,
      tag: messageId,
      text: "Your X-ray",
      media: ["https://example.com/xray.png"],
    });
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
  });

  it("receives an MMS from a message-received callback", async () => {
    const phone = randomNumber();
    const event = JSON.stringify([
      {
        type: "message-received",
        time: new Date().toISOString(),
        description: "Incoming message received",
        to: `+${account.numbers[0]}`,
        message: {
          id: "14762070468292kw2fuqty55yp2b2",
          from: `+${phone}`,
          to: [`+${account.numbers[0]}`],
          text: "Thanks!",
          media: ["https://messaging.bandwidth.com/api/v2/users/9900001/media/photo.jpg"],
          segmentCount: 1,
        },
      },
    ]);
    const res = await fetch(connections.bandwidth!.inboundUrl, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: basic("cb-user", "cb-password-123") },
      body: event,
    });
    expect(res.status).toBe(200);
    const [message] = await inboundListed(phone);
    expect(message).toMatchObject({
      messageType: "mms",
      body: "Thanks!",
      media: ["https://messaging.bandwidth.com/api/v2/users/9900001/media/photo.jpg"],
    });
  });
});

describe("a Vonage connection", () => {
  it("sends an SMS to the Messages API with webhook_url, and a signed status callback settles it", async () => {
    const from = account.numbers[1]!;
    const to = randomNumber();
    const messageId = await send(from, { to, body: "Your delivery arrives today" });
    const request = await vonage.waitFor((r) => r.path === "/v1/messages");
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

  it("receives an MMS (message_type image) from a signed inbound callback", async () => {
    const phone = randomNumber();
    const body = JSON.stringify({
      channel: "mms",
      message_uuid: crypto.randomUUID(),
      to: account.numbers[1],
      from: phone,
      timestamp: new Date().toISOString(),
      message_type: "image",
      image: { url: "https://api-us.nexmo.com/v3/media/parcel.jpg", caption: "Left at the door?" },
    });
    const res = await fetch(connections.vonage!.inboundUrl, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${vonageToken(body)}` },
      body,
    });
    expect(res.status).toBe(200);
    const [message] = await inboundListed(phone);
    expect(message).toMatchObject({
      messageType: "mms",
      body: "Left at the door?",
      media: ["https://api-us.nexmo.com/v3/media/parcel.jpg"],
    });
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
