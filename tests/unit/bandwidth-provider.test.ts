import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { bandwidthCallbackKinds, bandwidthChallenge, bandwidthProvider } from "../../lib/carriers/http/bandwidth";
import type { CallbackRequest, Provider } from "../../lib/carriers/http/provider";
import { providerFor } from "../../lib/carriers/http/providers";
import type { OpenConnection } from "../../lib/carriers/connections/manage-connections";

// Bandwidth as its Messaging API v2 documents it, played by a real HTTP server: an OAuth 2.0 token for the API
// credentials (or HTTP Basic for a legacy API user), a JSON message request, JSON errors {type, description}; and
// its callbacks: a JSON array of events, with the application's callback credentials in HTTP Basic.

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

const ACCOUNT = "9900000";
const APPLICATION = "93de2206-9669-4e07-948d-329f4b722ee2";

function connection(overrides: Partial<OpenConnection> = {}): OpenConnection {
  return {
    id: "cc_bandwidth",
    accountId: "acc_1",
    name: "Bandwidth",
    type: "bandwidth",
    enabled: true,
    settings: {
      accountId: ACCOUNT,
      username: "client-id",
      applicationId: APPLICATION,
      callbackUsername: "parley",
      apiUrl,
    },
    credentials: { password: "client-secret", callbackPassword: "callback-secret" },
    updatedAt: new Date(),
    ...overrides,
  };
}

const provider = (timeoutMs = 3000): Provider =>
  bandwidthProvider({
    connection: connection(),
    inboundUrl: "https://parley.example/carriers/cc_bandwidth/inbound",
    statusUrl: "https://parley.example/carriers/cc_bandwidth/status",
    timeoutMs,
  });

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { "content-type": "application/json; charset=utf-8", ...headers });
  res.end(JSON.stringify(body));
}

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`;

/** The token endpoint as Bandwidth's OAuth provider answers the client credentials grant. */
function tokenOr(next: Handler): Handler {
  return (request, res) => {
    if (request.path === "/api/v1/oauth2/token") {
      const good =
        request.method === "POST" &&
        request.headers.authorization === basic("client-id", "client-secret") &&
        request.headers["content-type"] === "application/x-www-form-urlencoded" &&
        new URLSearchParams(request.body).get("grant_type") === "client_credentials";
      if (!good) return json(res, 401, { error: "invalid_client" });
      return json(res, 200, { access_token: "bw-token-1", token_type: "Bearer", expires_in: 3600 });
    }
    next(request, res);
  };
}

/** The message request as Bandwidth documents it, answered 202 with the message. */
const acceptMessage: Handler = (request, res) => {
  const body = JSON.parse(request.body) as Record<string, unknown>;
  json(res, 202, {
    id: "1589228074636lm4k2je7j7jklbn2",
    owner: body.from,
    applicationId: body.applicationId,
    time: "2026-11-25T20:00:00.000Z",
    segmentCount: 1,
    direction: "out",
    to: body.to,
    from: body.from,
    text: body.text,
    media: body.media,
    tag: body.tag,
  });
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
  handler = (_request, res) => json(res, 500, { type: "unexpected" });
});

const message = {
  messageId: "msg_123",
  from: "12345678901",
  to: "12345678902",
  text: "Hey, check this out!",
  media: [] as string[],
  statusUrl: "https://parley.example/carriers/cc_bandwidth/status",
};

describe("send", () => {
  it("sends an SMS with an OAuth token and reads the message id of the 202 answer", async () => {
    handler = tokenOr(acceptMessage);
    const bandwidth = provider();
    const first = await bandwidth.send(message);
    const second = await bandwidth.send({ ...message, messageId: "msg_124" });

    expect(first).toEqual({ ok: true, providerMessageId: "1589228074636lm4k2je7j7jklbn2" });
    expect(second.ok).toBe(true);
    // One token serves both messages.
    expect(seen.map((r) => `${r.method} ${r.path}`)).toEqual([
      "POST /api/v1/oauth2/token",
      `POST /api/v2/users/${ACCOUNT}/messages`,
      `POST /api/v2/users/${ACCOUNT}/messages`,
    ]);
    const request = seen[1]!;
    expect(request.headers.authorization).toBe("Bearer bw-token-1");
    expect(request.headers["content-type"]).toMatch(/^application\/json/);
    expect(JSON.parse(request.body)).toEqual({
      applicationId: APPLICATION,
      to: ["+12345678902"],
      from: "+12345678901",
      text: "Hey, check this out!",
      tag: "msg_123",
    });
  });

  it("passes the send's validity on as the message's expiration", async () => {
    handler = tokenOr(acceptMessage);
    const validUntil = Date.UTC(2026, 11, 1, 8, 30, 0);
    expect((await provider().send({ ...message, validUntil })).ok).toBe(true);
    expect(JSON.parse(seen[1]!.body)).toMatchObject({ expiration: "2026-12-01T08:30:00.000Z" });
  });

  it("sends an MMS with its media URLs", async () => {
    handler = tokenOr(acceptMessage);
    const media = ["https://media.example/cat.jpg", "https://media.example/dog.png"];
    const result = await provider().send({ ...message, text: "", media });

    expect(result.ok).toBe(true);
    const body = JSON.parse(seen[1]!.body) as Record<string, unknown>;
    expect(body.media).toEqual(media);
    expect(body).not.toHaveProperty("text");
  });

  it("falls back to HTTP Basic for a legacy API user the token endpoint refuses", async () => {
    handler = (request, res) => {
      if (request.path === "/api/v1/oauth2/token") return json(res, 401, { error: "invalid_client" });
      if (request.headers.authorization !== basic("client-id", "client-secret"))
        return json(res, 401, { type: "unauthorized", description: "Authentication Failed" });
      acceptMessage(request, res);
    };
    const bandwidth = provider();
    expect((await bandwidth.send(message)).ok).toBe(true);
    expect((await bandwidth.send(message)).ok).toBe(true);
    // The refusal is remembered: no second token request.
    expect(seen.filter((r) => r.path === "/api/v1/oauth2/token")).toHaveLength(1);
  });

  it("a 400 refuses the message with Bandwidth's type and description", async () => {
    handler = tokenOr((_request, res) =>
      json(res, 400, {
        type: "request-validation",
        description: "Your request could not be accepted",
        fieldErrors: [
          { fieldName: "to", description: "'+1invalid' must be replaced with a valid E164 formatted number" },
        ],
      }),
    );
    expect(await provider().send(message)).toEqual({
      ok: false,
      outcome: "refused",
      code: "request-validation",
      detail:
        "HTTP 400: Your request could not be accepted: to '+1invalid' must be replaced with a valid E164 formatted number",
    });
  });

  it("a 503 with Retry-After is worth another try after that long", async () => {
    handler = tokenOr((_request, res) =>
      json(res, 503, { type: "service-unavailable", description: "Try again later" }, { "retry-after": "7" }),
    );
    expect(await provider().send(message)).toEqual({
      ok: false,
      outcome: "retry",
      code: "service-unavailable",
      detail: "HTTP 503: Try again later",
      retryAfterMs: 7000,
    });
  });

  it("a token endpoint that fails sends nothing and asks for another try", async () => {
    handler = (_request, res) => json(res, 502, {});
    const result = await provider().send(message);
    expect(result).toMatchObject({ ok: false, outcome: "retry" });
    expect(seen.map((r) => r.path)).toEqual(["/api/v1/oauth2/token"]);
  });

  it("no answer within the timeout leaves the outcome unknown", async () => {
    handler = tokenOr(() => {
      /* never answers */
    });
    const result = await provider(300).send(message);
    expect(result).toEqual({ ok: false, outcome: "unknown", detail: expect.stringMatching(/^no answer within/) });
  });
});

describe("check", () => {
  it("lists the account's media to prove the credentials, and says so", async () => {
    handler = tokenOr((request, res) => {
      if (request.method !== "GET" || request.path !== `/api/v2/users/${ACCOUNT}/media`) return json(res, 404, {});
      if (request.headers.authorization !== "Bearer bw-token-1") return json(res, 401, {});
      json(res, 200, [{ content: "https://messaging.bandwidth.com/api/v2/users/9900000/media/abc", mediaName: "abc" }]);
    });
    const check = await provider().check();
    expect(check.ok).toBe(true);
    expect(check.words).toMatch(/^Bandwidth account 9900000 answers \(API credentials\): 1 media file stored\./);
  });

  it("wrong credentials are an error in Bandwidth's words", async () => {
    handler = (request, res) =>
      request.path === "/api/v1/oauth2/token"
        ? json(res, 401, { error: "invalid_client" })
        : json(res, 401, { type: "unauthorized", description: "Authentication Failed" });
    await expect(provider().check()).rejects.toThrow("Bandwidth: HTTP 401, Authentication Failed");
  });

  it("is reached through providerFor with the connection's API address", async () => {
    handler = tokenOr((_request, res) => json(res, 200, []));
    const check = await providerFor(connection(), { timeoutMs: 3000 }).check();
    expect(check.words).toContain("0 media files stored");
  });
});

const callback = (body: unknown, authorization?: string): CallbackRequest => ({
  url: "https://parley.example/carriers/cc_bandwidth/status",
  headers: new Headers(authorization ? { authorization, "content-type": "application/json" } : {}),
  body: JSON.stringify(body),
});

// The docs' samples of each event.
const delivered = [
  {
    time: "2026-11-25T20:00:02.000Z",
    type: "message-delivered",
    to: "+12345678902",
    description: "ok",
    message: {
      id: "1589228074636lm4k2je7j7jklbn2",
      owner: "+12345678901",
      applicationId: APPLICATION,
      time: "2026-11-25T20:00:00.000Z",
      segmentCount: 1,
      direction: "out",
      to: ["+12345678902"],
      from: "+12345678901",
      text: "",
      tag: "msg_123",
    },
  },
];
const failed = (errorCode: number, description: string) => [
  {
    type: "message-failed",
    time: "2016-09-14T18:20:16Z",
    description,
    errorCode,
    to: "+52345678903",
    message: {
      id: "14762070468292kw2fuqty55yp2b2",
      time: "2016-09-14T18:20:16Z",
      to: ["+52345678903"],
      from: "+12345678901",
      text: "",
      applicationId: APPLICATION,
      owner: "+12345678901",
      direction: "out",
      tag: "msg_9",
    },
  },
];
const received = [
  {
    type: "message-received",
    time: "2026-11-25T21:00:00.000Z",
    description: "Incoming message received",
    to: "+12345678901",
    message: {
      id: "14762070468292kw2fuqty55yp2b3",
      time: "2026-11-25T21:00:00.000Z",
      to: ["+12345678901"],
      from: "+12345678902",
      text: "Hello back",
      applicationId: APPLICATION,
      media: ["https://messaging.bandwidth.com/api/v2/users/9900000/media/14762070468292kw2fuqty55yp2b3/0/picture.jpg"],
      owner: "+12345678901",
      direction: "in",
      segmentCount: 2,
    },
  },
];

describe("verify", () => {
  const bandwidth = () => provider();

  it("accepts the application's callback credentials", () => {
    expect(bandwidth().verify(callback(delivered, basic("parley", "callback-secret")), "status")).toEqual({ ok: true });
  });

  it("refuses a callback without credentials", () => {
    expect(bandwidth().verify(callback(delivered), "status")).toEqual({
      ok: false,
      reason: "no HTTP Basic credentials on the callback",
    });
  });

  it("a refusal challenges for HTTP Basic", () => {
    const answer = bandwidthChallenge();
    expect(answer.status).toBe(401);
    expect(answer.headers.get("www-authenticate")).toMatch(/^Basic realm="Parley"/);
  });

  it.each([
    ["a wrong password", basic("parley", "guess")],
    ["a wrong username", basic("someone", "callback-secret")],
    ["the API credentials instead", basic("client-id", "client-secret")],
  ])("refuses %s", (_what, authorization) => {
    expect(bandwidth().verify(callback(received, authorization), "inbound")).toEqual({
      ok: false,
      reason: "the callback's username or password is wrong",
    });
  });
});

describe("callbacks", () => {
  it("message-delivered is delivered", () => {
    expect(provider().parseStatus(callback(delivered))).toEqual([
      {
        providerMessageId: "1589228074636lm4k2je7j7jklbn2",
        status: "delivered",
        code: "",
        meaning: "",
        at: new Date("2026-11-25T20:00:02.000Z"),
      },
    ]);
  });

  it("message-failed rejected by Bandwidth failed; rejected by the carrier is undelivered", () => {
    const [forbidden] = provider().parseStatus(callback(failed(4432, "forbidden to country")));
    expect(forbidden).toMatchObject({ status: "failed", code: "4432", meaning: "forbidden to country" });
    const [carrier] = provider().parseStatus(callback(failed(4720, "invalid-destination-address")));
    expect(carrier).toMatchObject({ status: "undelivered", code: "4720", meaning: "invalid-destination-address" });
    const [ambiguous] = provider().parseStatus(callback(failed(9902, "delivery-receipt-expired")));
    expect(ambiguous).toMatchObject({ status: "undelivered", code: "9902" });
  });

  it("message-sending is sent", () => {
    const sending = [{ ...delivered[0], type: "message-sending", description: "Message is sending to carrier" }];
    expect(provider().parseStatus(callback(sending))).toMatchObject([{ status: "sent", code: "" }]);
  });

  it("a received message is read by parseInbound only", () => {
    expect(provider().parseStatus(callback(received))).toEqual([]);
    expect(provider().parseInbound(callback(received))).toEqual([
      {
        from: "12345678902",
        to: "12345678901",
        text: "Hello back",
        media: [
          "https://messaging.bandwidth.com/api/v2/users/9900000/media/14762070468292kw2fuqty55yp2b3/0/picture.jpg",
        ],
        numSegments: 2,
        carrierMessageId: "14762070468292kw2fuqty55yp2b3",
        receivedAt: new Date("2026-11-25T21:00:00.000Z"),
      },
    ]);
  });

  it("status events are ignored by parseInbound, and one callback may carry both kinds", () => {
    expect(provider().parseInbound(callback(delivered))).toEqual([]);
    const both = callback([...delivered, ...received]);
    expect(bandwidthCallbackKinds(both)).toEqual(["status", "inbound"]);
    expect(provider().parseStatus(both)).toHaveLength(1);
    expect(provider().parseInbound(both)).toHaveLength(1);
    expect(bandwidthCallbackKinds(callback({ not: "an event" }))).toEqual([]);
  });
});
