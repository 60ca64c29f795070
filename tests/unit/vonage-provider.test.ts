import { createHash, createHmac, generateKeyPairSync, randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { verifySignature } from "@vonage/jwt";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { CallbackRequest, Provider } from "../../lib/carriers/http/provider";
import { providerFor } from "../../lib/carriers/http/providers";
import { vonageProvider } from "../../lib/carriers/http/vonage";
import type { OpenConnection } from "../../lib/carriers/connections/manage-connections";

// Vonage as its Messages, Account and Numbers APIs document them, played by a real HTTP server: a JSON message
// request signed with the application's JWT (or HTTP Basic with the API key and secret), RFC 7807 errors; the
// balance and numbers APIs with HTTP Basic; and its signed webhooks: a HS256 JWT keyed by the signature secret.

interface Seen {
  method: string;
  path: string;
  headers: IncomingMessage["headers"];
  body: string;
}

type Handler = (seen: Seen, res: ServerResponse) => void;

let server: Server;
let apiUrl: string;
let seen: Seen[] = [];
let handler: Handler;

const API_KEY = "abcd1234";
const APPLICATION = "aaaaaaaa-bbbb-cccc-dddd-0123456789ab";
const SIGNATURE_SECRET = "a-signature-secret-of-32-characters";
const keys = generateKeyPairSync("rsa", {
  modulusLength: 2048,
  publicKeyEncoding: { type: "spki", format: "pem" },
  privateKeyEncoding: { type: "pkcs8", format: "pem" },
});

function connection(withApplication: boolean): OpenConnection {
  return {
    id: "cc_vonage",
    accountId: "acc_1",
    name: "Vonage",
    type: "vonage",
    enabled: true,
    settings: { apiKey: API_KEY, apiUrl, ...(withApplication ? { applicationId: APPLICATION } : {}) },
    credentials: {
      apiSecret: "api-secret",
      signatureSecret: SIGNATURE_SECRET,
      ...(withApplication ? { privateKey: keys.privateKey } : {}),
    },
    updatedAt: new Date(),
  };
}

const INBOUND_URL = "https://parley.example/carriers/cc_vonage/inbound";
const STATUS_URL = "https://parley.example/carriers/cc_vonage/status";

const provider = ({ withApplication = true, timeoutMs = 3000 } = {}): Provider =>
  vonageProvider({
    connection: connection(withApplication),
    inboundUrl: INBOUND_URL,
    statusUrl: STATUS_URL,
    timeoutMs,
  });

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

const basic = `Basic ${Buffer.from(`${API_KEY}:api-secret`).toString("base64")}`;

/** Whether a Messages API request carries a JWT of the application, signed with its private key. */
function signedByApplication(request: Seen): boolean {
  const token = /^Bearer (.+)$/.exec(request.headers.authorization ?? "")?.[1];
  if (!token || !verifySignature(token, keys.publicKey)) return false;
  const claims = JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString()) as { application_id?: string };
  return claims.application_id === APPLICATION;
}

const acceptMessage: Handler = (request, res) => {
  if (request.method !== "POST" || request.path !== "/v1/messages") return json(res, 404, {});
  json(res, 202, { message_uuid: "aaaaaaaa-bbbb-4ccc-8ddd-0123456789ab" });
};

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const request = {
        method: req.method ?? "",
        path: req.url ?? "",
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf-8"),
      };
      seen.push(request);
      handler(request, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  apiUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => {
  seen = [];
  handler = (_request, res) => json(res, 500, {});
});

const message = {
  messageId: "msg_123",
  from: "14155550100",
  to: "447700900000",
  text: "Hello from Parley",
  media: [] as string[],
  statusUrl: STATUS_URL,
};

describe("send", () => {
  it("sends an SMS signed with the application's JWT, its status URL on the message", async () => {
    handler = acceptMessage;
    const result = await provider().send(message);

    expect(result).toEqual({ ok: true, providerMessageId: "aaaaaaaa-bbbb-4ccc-8ddd-0123456789ab" });
    const request = seen[0]!;
    expect(signedByApplication(request)).toBe(true);
    expect(request.headers["content-type"]).toBe("application/json");
    expect(JSON.parse(request.body)).toEqual({
      message_type: "text",
      channel: "sms",
      to: "447700900000",
      from: "14155550100",
      text: "Hello from Parley",
      client_ref: "msg_123",
      webhook_url: STATUS_URL,
    });
  });

  it("passes the send's validity on as the message's ttl, in seconds", async () => {
    handler = acceptMessage;
    expect((await provider().send({ ...message, validUntil: Date.now() + 299_500 })).ok).toBe(true);
    expect(JSON.parse(seen[0]!.body)).toMatchObject({ channel: "sms", ttl: 300 });
  });

  it("uses HTTP Basic with the API key and secret when there is no application", async () => {
    handler = acceptMessage;
    expect((await provider({ withApplication: false }).send(message)).ok).toBe(true);
    expect(seen[0]!.headers.authorization).toBe(basic);
  });

  it("sends an MMS as one image, the text its caption", async () => {
    handler = acceptMessage;
    const media = ["https://media.example/cat.jpg", "https://media.example/dog.jpg"];
    expect((await provider().send({ ...message, to: "14155550101", media })).ok).toBe(true);
    expect(JSON.parse(seen[0]!.body)).toEqual({
      message_type: "image",
      channel: "mms",
      to: "14155550101",
      from: "14155550100",
      image: { url: "https://media.example/cat.jpg", caption: "Hello from Parley" },
      client_ref: "msg_123",
      webhook_url: STATUS_URL,
    });
  });

  it("a 422 refuses the message with Vonage's code and words", async () => {
    handler = (_request, res) =>
      json(res, 422, {
        type: "https://developer.vonage.com/api-errors/messages#1150",
        title: "Invalid params",
        detail: "The value of one or more parameters is invalid.",
        instance: "bf0ca0bf927b3b52e3cb03217e1a1ddf",
        invalid_parameters: [{ name: "to", reason: "Invalid value" }],
      });
    expect(await provider().send(message)).toEqual({
      ok: false,
      outcome: "refused",
      code: "1150",
      detail: "HTTP 422: Invalid params: The value of one or more parameters is invalid.: to Invalid value",
    });
  });

  it("a 401 refuses it as unauthorized", async () => {
    handler = (_request, res) =>
      json(res, 401, {
        type: "https://developer.nexmo.com/api-errors#unauthorized",
        title: "Unauthorized",
        detail: "You did not provide correct credentials.",
        instance: "797a8f199c45014ab7b08bfe9cc1c12c",
      });
    expect(await provider({ withApplication: false }).send(message)).toMatchObject({
      outcome: "refused",
      code: "unauthorized",
      detail: "HTTP 401: Unauthorized: You did not provide correct credentials.",
    });
  });

  it("a 503 with Retry-After is worth another try after that long", async () => {
    handler = (_request, res) =>
      json(res, 503, { title: "Service Unavailable", detail: "Try later" }, { "retry-after": "12" });
    expect(await provider().send(message)).toEqual({
      ok: false,
      outcome: "retry",
      code: "Service Unavailable",
      detail: "HTTP 503: Service Unavailable: Try later",
      retryAfterMs: 12_000,
    });
  });

  it("no answer within the timeout leaves the outcome unknown", async () => {
    handler = () => {
      /* never answers */
    };
    expect(await provider({ timeoutMs: 300 }).send(message)).toEqual({
      ok: false,
      outcome: "unknown",
      detail: expect.stringMatching(/^no answer within/),
    });
  });
});

describe("check", () => {
  it("reads the account balance", async () => {
    handler = (request, res) => {
      if (request.method !== "GET" || request.path !== "/account/get-balance") return json(res, 404, {});
      if (request.headers.authorization !== basic) return json(res, 401, {});
      json(res, 200, { value: 12.34, autoReload: false });
    };
    expect(await providerFor(connection(true), { timeoutMs: 3000 }).check()).toEqual({
      ok: true,
      words: `Vonage account ${API_KEY} answers: balance 12.34 EUR.`,
    });
  });

  it("wrong credentials are an error in Vonage's words", async () => {
    handler = (_request, res) => json(res, 401, { "error-code": "401", "error-code-label": "authentication failed" });
    await expect(provider().check()).rejects.toThrow("Vonage: HTTP 401, authentication failed");
  });
});

// A signed webhook as Vonage sends it: a HS256 JWT over these claims, keyed by the signature secret.
function signedCallback(
  body: unknown,
  { secret = SIGNATURE_SECRET, iat = Math.floor(Date.now() / 1000), exp, hashOf }: SignOptions = {},
): CallbackRequest {
  const raw = JSON.stringify(body);
  const claims: Record<string, unknown> = {
    iat,
    jti: randomUUID(),
    iss: "Vonage",
    payload_hash: createHash("sha256")
      .update(hashOf ?? raw)
      .digest("hex"),
    api_key: API_KEY,
    application_id: APPLICATION,
    ...(exp === undefined ? {} : { exp }),
  };
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
  const unsigned = `${part({ alg: "HS256", typ: "JWT" })}.${part(claims)}`;
  const signature = createHmac("sha256", secret).update(unsigned).digest("base64url");
  return {
    url: STATUS_URL,
    headers: new Headers({ authorization: `Bearer ${unsigned}.${signature}`, "content-type": "application/json" }),
    body: raw,
  };
}

interface SignOptions {
  secret?: string;
  iat?: number;
  exp?: number;
  hashOf?: string;
}

// The docs' sample payloads.
const delivered = {
  message_uuid: "aaaaaaaa-bbbb-4ccc-8ddd-0123456789ab",
  to: "447700900000",
  from: "14155550100",
  timestamp: "2026-11-25T20:00:02.000Z",
  status: "delivered",
  usage: { currency: "EUR", price: "0.0333" },
  client_ref: "msg_123",
  channel: "sms",
};
const inboundSms = {
  channel: "sms",
  message_uuid: "aaaaaaaa-bbbb-4ccc-8ddd-0123456789ac",
  to: "14155550100",
  from: "447700900000",
  timestamp: "2026-11-25T21:00:00Z",
  text: "Hello back",
  sms: { num_messages: "2" },
  message_type: "text",
};

describe("verify", () => {
  it("accepts a callback signed with the signature secret, its payload_hash the body's", () => {
    expect(provider().verify(signedCallback(delivered), "status")).toEqual({ ok: true });
  });

  it("refuses an unsigned callback", () => {
    const request = { ...signedCallback(delivered), headers: new Headers({ "content-type": "application/json" }) };
    expect(provider().verify(request, "status")).toEqual({
      ok: false,
      reason: "no signed JWT (Authorization: Bearer) on the callback",
    });
  });

  it("refuses a callback signed with another secret", () => {
    expect(provider().verify(signedCallback(delivered, { secret: "another-secret" }), "status")).toMatchObject({
      ok: false,
      reason: "the callback's JWT is not signed with the signature secret, or has expired",
    });
  });

  it("refuses a callback whose token was issued more than 5 minutes ago", () => {
    const tenMinutesAgo = Math.floor(Date.now() / 1000) - 600;
    expect(provider().verify(signedCallback(delivered, { iat: tenMinutesAgo }), "status")).toEqual({
      ok: false,
      reason: "the callback's JWT was issued 600 s ago",
    });
  });

  it("refuses an expired token", () => {
    const now = Math.floor(Date.now() / 1000);
    expect(provider().verify(signedCallback(delivered, { exp: now - 10 }), "status")).toMatchObject({ ok: false });
  });

  it("refuses a callback whose body was changed after signing", () => {
    const request = signedCallback(delivered);
    const tampered = { ...request, body: request.body.replace('"delivered"', '"rejected"') };
    expect(provider().verify(tampered, "status")).toEqual({
      ok: false,
      reason: "the callback's body does not match the JWT's payload_hash",
    });
  });
});

const plain = (body: unknown): CallbackRequest => ({
  url: STATUS_URL,
  headers: new Headers(),
  body: JSON.stringify(body),
});

describe("callbacks", () => {
  it("delivered is delivered", () => {
    expect(provider().parseStatus(plain(delivered))).toEqual([
      {
        providerMessageId: "aaaaaaaa-bbbb-4ccc-8ddd-0123456789ab",
        status: "delivered",
        code: "",
        meaning: "",
        at: new Date("2026-11-25T20:00:02.000Z"),
      },
    ]);
  });

  it("submitted is sent, rejected undelivered and undeliverable failed, with the error's code and words", () => {
    const vonage = provider();
    expect(vonage.parseStatus(plain({ ...delivered, status: "submitted" }))).toMatchObject([{ status: "sent" }]);
    const rejected = {
      ...delivered,
      status: "rejected",
      error: {
        type: "https://developer.vonage.com/api-errors/messages#1250",
        title: 1250,
        detail: "Unroutable: the message could not be routed to the destination network",
      },
    };
    expect(vonage.parseStatus(plain(rejected))).toMatchObject([
      {
        status: "undelivered",
        code: "1250",
        meaning: "Unroutable: the message could not be routed to the destination network",
      },
    ]);
    const undeliverable = { ...rejected, status: "undeliverable" };
    expect(vonage.parseStatus(plain(undeliverable))).toMatchObject([{ status: "failed", code: "1250" }]);
  });

  it("an inbound SMS is read by parseInbound only", () => {
    expect(provider().parseStatus(plain(inboundSms))).toEqual([]);
    expect(provider().parseInbound(plain(inboundSms))).toEqual([
      {
        from: "447700900000",
        to: "14155550100",
        text: "Hello back",
        media: [],
        numSegments: 2,
        carrierMessageId: "aaaaaaaa-bbbb-4ccc-8ddd-0123456789ac",
        receivedAt: new Date("2026-11-25T21:00:00Z"),
      },
    ]);
    expect(provider().parseInbound(plain(delivered))).toEqual([]);
  });

  it("an inbound MMS gives its image and caption", () => {
    const mms = {
      channel: "mms",
      message_uuid: "aaaaaaaa-bbbb-4ccc-8ddd-0123456789ad",
      to: "14155550100",
      from: "14155550199",
      timestamp: "2026-11-25T21:05:00Z",
      message_type: "image",
      image: { url: "https://api-us.nexmo.com/v3/media/1234", caption: "Look" },
    };
    expect(provider().parseInbound(plain(mms))).toMatchObject([
      { from: "14155550199", text: "Look", media: ["https://api-us.nexmo.com/v3/media/1234"], numSegments: 1 },
    ]);
  });
});

describe("numbers", () => {
  const form = (request: Seen) => Object.fromEntries(new URLSearchParams(request.body));

  it("lists the account's numbers", async () => {
    handler = (request, res) => {
      if (request.method !== "GET" || !request.path.startsWith("/account/numbers")) return json(res, 404, {});
      if (request.headers.authorization !== basic) return json(res, 401, {});
      json(res, 200, {
        count: 1,
        numbers: [{ country: "US", msisdn: "14155550100", type: "mobile-lvn", features: ["SMS", "MMS", "VOICE"] }],
      });
    };
    expect(await provider().listNumbers!()).toEqual([
      { providerNumberId: "US:14155550100", number: "14155550100", label: "mobile-lvn" },
    ]);
  });

  it("points a number's inbound messages at the connection", async () => {
    handler = (request, res) => json(res, 200, { "error-code": "200", "error-code-label": "success" });
    await provider().configureNumber!({ providerNumberId: "US:14155550100", number: "14155550100", label: "" });
    expect(seen[0]!.method).toBe("POST");
    expect(seen[0]!.path).toBe("/number/update");
    expect(seen[0]!.headers["content-type"]).toBe("application/x-www-form-urlencoded");
    expect(form(seen[0]!)).toEqual({
      country: "US",
      msisdn: "14155550100",
      moHttpUrl: INBOUND_URL,
      app_id: APPLICATION,
    });
  });

  it("searches by area code, buys a number already configured, and releases it", async () => {
    handler = (request, res) => {
      if (request.path.startsWith("/number/search"))
        return json(res, 200, { count: 1, numbers: [{ country: "US", msisdn: "14155550123", type: "mobile-lvn" }] });
      json(res, 200, { "error-code": "200", "error-code-label": "success" });
    };
    const vonage = provider();
    expect(await vonage.searchNumbers!({ country: "us", areaCode: "415" })).toEqual([
      { number: "14155550123", locality: "" },
    ]);
    const query = new URL(seen[0]!.path, apiUrl).searchParams;
    expect(Object.fromEntries(query)).toEqual({
      country: "US",
      features: "SMS",
      size: "20",
      pattern: "1415",
      search_pattern: "0",
    });

    const bought = await vonage.buyNumber!("14155550123");
    expect(bought).toEqual({ providerNumberId: "US:14155550123", number: "14155550123", label: "" });
    expect(seen.slice(1).map((r) => `${r.method} ${r.path} ${r.body}`)).toEqual([
      "POST /number/buy country=US&msisdn=14155550123",
      `POST /number/update country=US&msisdn=14155550123&moHttpUrl=${encodeURIComponent(INBOUND_URL)}&app_id=${APPLICATION}`,
    ]);

    await vonage.releaseNumber!(bought);
    expect(seen.at(-1)!.path).toBe("/number/cancel");
    expect(form(seen.at(-1)!)).toEqual({ country: "US", msisdn: "14155550123" });
  });

  it("a refusal is an error in Vonage's words", async () => {
    handler = (_request, res) =>
      json(res, 420, {
        "error-code": "420",
        "error-code-label": "Numbers from this country can be requested from the Dashboard",
      });
    await expect(provider().buyNumber!("447700900123")).rejects.toThrow(
      "Vonage purchase of +447700900123: HTTP 420, Numbers from this country can be requested from the Dashboard",
    );
    expect(form(seen[0]!)).toEqual({ country: "GB", msisdn: "447700900123" });
  });
});
