import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../helpers/server";
import { createTestAccount, releaseFactories, type TestAccount } from "../helpers/factories";
import { portalCookie } from "../helpers/portal-session";
import { rawExchange, rawRequest, type RawResponse } from "../helpers/raw-http";
import { createUser } from "../../lib/accounts/manage-accounts";

// What an attacker sends that no client library would: bad percent-escapes, JSON nested thousands deep, methods
// such as TRACE and PROPFIND, bytes that are not HTTP. Every answer under /v3 and /api is the envelope, never a 500.

let server: RunningServer;
let account: TestAccount;
let cookie: string;

const DEST = "14155550123";
const UNKNOWN_UUID = "0192f1d2-3c4b-7a5e-8f60-123456789abc";
const password = "correct horse battery";

beforeAll(async () => {
  server = await startServer();
  account = await createTestAccount(server);
  const email = `admin-${account.accountId}@example.com`;
  await createUser({ accountId: account.accountId, email, password, role: "admin", name: "Ada Admin" });
  cookie = await portalCookie(server, email, password);
});

afterAll(async () => {
  await releaseFactories();
  await server?.stop();
});

function expectEnvelope(res: RawResponse, httpStatus: number, code: string, statusMessage: string): void {
  expect({ status: res.status, body: res.json }, res.text).toMatchObject({
    status: httpStatus,
    body: { status: code, statusCode: httpStatus, statusMessage },
  });
  expect(res.json!.statusUri).toMatch(new RegExp(`/docs#error-${code}$`));
  expect(res.headers["content-type"]).toMatch(/^application\/json/);
  expect(res.headers["x-request-id"]).toMatch(/\S/);
  expect(res.text).not.toMatch(/\bat \S+ \(|Error:/);
}

const get = (path: string, headers: Record<string, string> = account.headers) =>
  rawRequest(server, { method: "GET", path, headers });

function validSend(over: Record<string, unknown> = {}): Record<string, unknown> {
  return { accountId: account.accountId, from: account.numbers[0], to: DEST, body: "hello", ...over };
}

/** `[[[…]]]` n levels deep. */
const nested = (levels: number) => "[".repeat(levels) + "]".repeat(levels);

describe("malformed percent-escapes in the path", () => {
  it.each([
    ["a path parameter of the SDR route", () => `/v3/sdrs/${account.accountId}/%ZZ`, "messageId"],
    ["the account of the SDR route", () => `/v3/sdrs/%E2%82/${UNKNOWN_UUID}`, "accountId"],
  ])("answers InvalidRequest naming %s", async (_label, path, field) => {
    const res = await get(path());
    expectEnvelope(res, 400, "InvalidRequest", "Invalid Request");
    expect(res.json!.data).toMatchObject({ field, apiVersion: "v3" });
    expect(res.json!.data.error_message).toContain(`'${field}'`);
  });

  it("answers InvalidRequest naming the number of DELETE /v3/numbers/{number}", async () => {
    const res = await rawRequest(server, { method: "DELETE", path: "/v3/numbers/1415%G0", headers: account.headers });
    expectEnvelope(res, 400, "InvalidRequest", "Invalid Request");
    expect(res.json!.data.field).toBe("number");
  });

  it.each(["/v3/foo%ZZ", "/v3/%", "/v3/%E2%82", "/v3/messages%", "/v3/sdrs/%/x/y", "/v3/%C0%AF"])(
    "answers UnknownResource for %s",
    async (path) => {
      expectEnvelope(await get(path), 400, "UnknownResource", "Unknown resource on GET");
    },
  );

  it("answers InvalidRequest naming the account of an admin route", async () => {
    const res = await get(`/api/admin/accounts/%ZZ/webhook`);
    expectEnvelope(res, 400, "InvalidRequest", "Invalid Request");
    expect(res.json!.data.field).toBe("accountId");
  });

  it("answers InvalidRequest naming the user of an admin route, signed in through the portal", async () => {
    const res = await rawRequest(server, {
      method: "PATCH",
      path: `/api/admin/accounts/${account.accountId}/users/%FF`,
      headers: { cookie, "content-type": "application/json" },
      body: "{}",
    });
    expectEnvelope(res, 400, "InvalidRequest", "Invalid Request");
    expect(res.json!.data.field).toBe("userId");
  });

  it.each(["/api/%ZZ", "/api/auth/%ZZ", "/api/admin/%"])("answers UnknownResource for %s", async (path) => {
    expectEnvelope(await get(path), 400, "UnknownResource", "Unknown resource on GET");
  });

  it("answers a NUL (%00) in a path parameter as InvalidRequest", async () => {
    const res = await rawRequest(server, {
      method: "PATCH",
      path: `/api/admin/accounts/${account.accountId}/users/%00`,
      headers: account.headers,
      body: "{}",
    });
    expectEnvelope(res, 400, "InvalidRequest", "Invalid Request");
    expect(res.json!.data.field).toBe("userId");
  });

  it("answers a NUL (%00) in a query parameter as InvalidRequest naming it", async () => {
    const res = await get(`/v3/messages?accountId=${account.accountId}&body=a%00b`);
    expectEnvelope(res, 400, "InvalidRequest", "Invalid Request");
    expect(res.json!.data.field).toBe("body");
  });
});

describe("JSON nested deeper than 64 levels", () => {
  const send = (raw: string, headers: Record<string, string> = {}) =>
    rawRequest(server, {
      method: "POST",
      path: "/v3/messages",
      headers: { ...account.headers, ...headers },
      body: raw,
    });

  it("refuses 5,000 levels in an unknown field with an Idempotency-Key as InvalidJSON", async () => {
    const raw = JSON.stringify(validSend()).replace(/}$/, `,"extra":${nested(5_000)}}`);
    const res = await send(raw, { "idempotency-key": "deep-1" });
    expectEnvelope(res, 400, "InvalidJSON", "The JSON request is not valid.");
    expect(res.json!.data.error_message).toContain("64");
  });

  it("accepts 64 levels in all and refuses 65", async () => {
    // The body object is level 1, so the unknown field may hold 63 more.
    const at = (levels: number) => JSON.stringify(validSend()).replace(/}$/, `,"extra":${nested(levels)}}`);
    const ok = await send(at(63), { "idempotency-key": "deep-63" });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.json!.status).toBe("MessageCreateSuccessful");
    expectEnvelope(await send(at(64)), 400, "InvalidJSON", "The JSON request is not valid.");
  });

  it("counts brackets inside strings as text, not nesting", async () => {
    const res = await send(JSON.stringify(validSend({ note: "[".repeat(500) + '\\"{'.repeat(100) })));
    expect(res.status, res.text).toBe(200);
  });

  it("refuses deep JSON on admin routes too", async () => {
    const res = await rawRequest(server, {
      method: "PUT",
      path: `/api/admin/accounts/${account.accountId}/webhook`,
      headers: account.headers,
      body: `{"url":"https://example.com/hook","x":${nested(10_000)}}`,
    });
    expectEnvelope(res, 400, "InvalidJSON", "The JSON request is not valid.");
  });

  it("refuses the NUL character in JSON text as InvalidRequest", async () => {
    const res = await send(JSON.stringify(validSend({ body: "a\u0000b" })));
    expectEnvelope(res, 400, "InvalidRequest", "Invalid Request");
    expect(res.json!.data.error_message).toMatch(/NUL/);
    // An escaped backslash followed by u0000 is six characters of text, not NUL.
    expect((await send(JSON.stringify(validSend({ body: "a\\u0000b" })))).status).toBe(200);
  });
});

describe("methods Parley does not serve", () => {
  it.each([
    ["TRACE", "/v3/messages"],
    ["TRACE", "/api/health"],
    ["TRACE", "/"],
    ["TRACE", `/api/admin/accounts/{account}/webhook`],
    ["PROPFIND", "/v3/messages"],
    ["MKCOL", "/v3/x"],
    ["REPORT", "/v3/sdrs/a/b"],
    ["SEARCH", "/v3/numbers"],
    ["PURGE", "/v3"],
    ["OPTIONS", "/v3/messages"],
    ["OPTIONS", "/api/auth/session"],
    ["LINK", "/api/nothing"],
  ])("answers %s %s with ResourceNotAllowed naming the method", async (method, path) => {
    const res = await rawRequest(server, {
      method,
      path: path.replace("{account}", account.accountId),
      headers: account.headers,
    });
    expectEnvelope(res, 400, "ResourceNotAllowed", `Resource not allowed on ${method}`);
  });

  it("answers OPTIONS * with the envelope", async () => {
    const res = await rawRequest(server, { method: "OPTIONS", path: "*" });
    expectEnvelope(res, 400, "ResourceNotAllowed", "Resource not allowed on OPTIONS");
  });

  it.each([
    ["PATCH", `/api/admin/accounts/{account}/webhook`],
    ["POST", `/api/admin/accounts/{account}/audit`],
    ["POST", "/v3/openapi.json"],
    ["DELETE", "/v3/openapi.json"],
    ["POST", "/api/health"],
    ["PUT", "/api/auth/session"],
    ["DELETE", "/api/auth/csrf"],
  ])("answers %s on a route that does not serve it with ResourceNotAllowed", async (method, path) => {
    const res = await rawRequest(server, {
      method,
      path: path.replace("{account}", account.accountId),
      headers: account.headers,
      body: "{}",
    });
    expectEnvelope(res, 400, "ResourceNotAllowed", `Resource not allowed on ${method}`);
  });

  it("answers a method the HTTP parser does not know with ResourceNotAllowed naming it", async () => {
    const res = await rawExchange(server, "BREW /v3/messages HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    expectEnvelope(res, 400, "ResourceNotAllowed", "Resource not allowed on BREW");
  });

  it("answers CONNECT with the envelope", async () => {
    const res = await rawExchange(server, "CONNECT 127.0.0.1:22 HTTP/1.1\r\nHost: 127.0.0.1:22\r\n\r\n");
    expectEnvelope(res, 400, "ResourceNotAllowed", "Resource not allowed on CONNECT");
  });
});

describe("paths and bytes that are not a request Parley knows", () => {
  it.each(["/api/nothing", "/api", "/api/admin/accounts/{account}/nothing"])(
    "answers GET %s with UnknownResource",
    async (path) => {
      expectEnvelope(
        await get(path.replace("{account}", account.accountId)),
        400,
        "UnknownResource",
        "Unknown resource on GET",
      );
    },
  );

  it.each(["", "{not json", '{"csrfToken":'])(
    "answers a body declared JSON that does not parse, sent to next-auth, with InvalidJSON (%j)",
    async (raw) => {
      const res = await rawRequest(server, {
        method: "POST",
        path: "/api/auth/callback/credentials",
        headers: { "content-type": "application/json" },
        body: raw,
      });
      expectEnvelope(res, 400, "InvalidJSON", "The JSON request is not valid.");
    },
  );

  it("answers an action next-auth does not know with the envelope, not its error text", async () => {
    const res = await get("/api/auth/nothing");
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ statusCode: 400 });
    expect(res.text).not.toMatch(/NextAuth|Error/);
  });

  it.each([
    ["bytes that are not HTTP", "GARBAGE\r\n\r\n"],
    ["a header name with a space", "GET /v3/messages HTTP/1.1\r\nHost: x\r\nBad Header: y\r\n\r\n"],
    ["raw bytes above 0x7F in the path", "GET /v3/mess\u00e2\u0082ages HTTP/1.1\r\nHost: x\r\n\r\n"],
    [
      "both Content-Length and Transfer-Encoding",
      "POST /v3/messages HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n",
    ],
  ])("answers %s with a JSON 400", async (_label, bytes) => {
    const res = await rawExchange(server, Buffer.from(bytes, "latin1"));
    expect(res.status, res.raw).toBe(400);
    expect(res.json, res.raw).toMatchObject({ status: "InvalidRequest", statusCode: 400 });
    expect(res.headers["content-type"]).toMatch(/^application\/json/);
  });

  it("answers a request in absolute form as the same request in origin form", async () => {
    const res = await rawExchange(
      server,
      `GET http://127.0.0.1:${server.port}/v3/messages HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
    );
    expectEnvelope(res, 401, "Unauthorized", "Missing or invalid credentials");
  });

  it("answers an Upgrade request outside /socket.io with the envelope", async () => {
    const res = await rawExchange(
      server,
      "GET /v3/messages HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n",
    );
    expect(res.status, res.raw).toBe(400);
    expect(res.json).toMatchObject({ status: "InvalidRequest", statusCode: 400 });
  });
});

describe("other spellings of an API path", () => {
  it.each([
    "/v3/messages/?{q}",
    "/v3//messages?{q}",
    "/v3/messages/.?{q}",
    "/v3/x/../messages?{q}",
    "/v3/%2E/messages?{q}",
    "/v3\\messages?{q}",
    "/v3/messages?{q}#top",
    "http://example.com/v3/messages?{q}",
  ])("answers %s as /v3/messages, not with a redirect", async (path) => {
    const res = await get(path.replace("{q}", `accountId=${account.accountId}&count=1`));
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({ status: "QueryCompletedSuccessfully", data: { count: "1" } });
  });

  it("answers /api/health/ as /api/health", async () => {
    expect((await get("/api/health/", {})).json).toMatchObject({ status: "ok" });
  });

  it("answers dot segments that lead out of the API with UnknownResource", async () => {
    expectEnvelope(await get("/v3/.."), 400, "UnknownResource", "Unknown resource on GET");
    expectEnvelope(await get("/api/%2e%2e/login"), 400, "UnknownResource", "Unknown resource on GET");
  });
});

describe("requests that would reach Next's page machinery", () => {
  it.each(["/API/nothing", "/V3/messages", "/v3%2Fmessages", "/Api/Health"])(
    "answers %s (an API path in another spelling) with the envelope",
    async (path) => {
      expectEnvelope(await get(path), 400, "UnknownResource", "Unknown resource on GET");
    },
  );

  it("ignores the RSC and router headers of Next on API paths", async () => {
    const res = await get("/api/health", { rsc: "1", "next-router-state-tree": "%ZZ", "next-action": "x" });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ status: "ok" });
  });

  it("answers an unknown API path with the envelope even when the client holds a cached copy", async () => {
    const res = await rawRequest(server, { method: "PUT", path: "/API/x", headers: { "if-none-match": "*" } });
    expectEnvelope(res, 400, "UnknownResource", "Unknown resource on PUT");
  });

  it("answers an HTTP/1.1 request without Host with the envelope", async () => {
    const res = await rawExchange(server, "GET /v3/messages HTTP/1.1\r\nConnection: close\r\n\r\n");
    expectEnvelope(res, 400, "InvalidRequest", "Invalid Request");
  });

  it("answers a malformed HEAD request with the head alone", async () => {
    const res = await rawExchange(server, Buffer.from("HEAD /v3/m\u00e2 HTTP/1.1\r\nHost: x\r\n\r\n", "latin1"));
    expect(res.status).toBe(400);
    expect(Number(res.headers["content-length"])).toBeGreaterThan(0);
    expect(res.text).toBe("");
  });
});

describe("after all that", () => {
  it("next-auth still signs in, the portal session still works and a send still goes out", async () => {
    const fresh = await portalCookie(server, `admin-${account.accountId}@example.com`, password);
    const admin = await get(`/api/admin/accounts/${account.accountId}`, { cookie: fresh });
    expect(admin.status, admin.text).toBe(200);
    const sent = await rawRequest(server, {
      method: "POST",
      path: "/v3/messages",
      headers: account.headers,
      body: JSON.stringify(validSend()),
    });
    expect(sent.json).toMatchObject({ status: "MessageCreateSuccessful", statusCode: 200 });
    const health = await get("/api/health", {});
    expect(health.json).toMatchObject({ status: "ok" });
  });
});
