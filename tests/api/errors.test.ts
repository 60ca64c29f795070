import { afterAll, beforeAll, describe, expect, it } from "vitest";
import Database from "better-sqlite3";
import pg from "pg";
import { startServer, type RunningServer } from "../helpers/server";
import { call, createTestAccount, releaseFactories, type ApiResponse, type TestAccount } from "../helpers/factories";
import { sqliteFilePath } from "../../lib/db/sqlite-path";

// Every error a client can meet on the v3 API, as the client sees it over HTTP: the seed's Errors table and the
// API decisions (check order, limits, 401/403, 404 on SDRs, other methods and paths, 500).

let server: RunningServer;
let account: TestAccount; // the caller
let other: TestAccount; // an account the caller's key does not grant
let otherMessageId: string; // a real message of `other`

const DEST = "14155550123";
const UNKNOWN_UUID = "0192f1d2-3c4b-7a5e-8f60-123456789abc";

beforeAll(async () => {
  server = await startServer();
  account = await createTestAccount(server);
  other = await createTestAccount(server);
  const sent = await call(server, "POST", "/v3/messages", {
    headers: other.headers,
    body: { accountId: other.accountId, from: other.numbers[0], to: DEST, body: "not yours" },
  });
  expect(sent.status).toBe(200);
  otherMessageId = sent.json.data.messageInfo[0].messageId;
});

afterAll(async () => {
  await releaseFactories();
  await server?.stop();
});

// ---------------------------------------------------------------------------------------------------------------

/** The decided error envelope: HTTP status = statusCode (a number), the seed's words, a docs link, a request id. */
function expectError(res: ApiResponse, httpStatus: number, code: string, statusMessage: string): void {
  expect({ status: res.status, body: res.json }).toMatchObject({
    status: httpStatus,
    body: { status: code, statusCode: httpStatus, statusMessage },
  });
  expect(typeof res.json.statusCode).toBe("number");
  const uri = new URL(res.json.statusUri);
  expect(uri.protocol).toMatch(/^https?:$/);
  expect(uri.pathname + uri.hash).toBe(`/docs#error-${code}`);
  expect(res.headers.get("x-request-id")).toMatch(/\S/);
  expect(res.headers.get("content-type")).toMatch(/^application\/json/);
  if (res.json.data !== undefined) expect(res.json.data.apiVersion).toBe("v3");
}

/** 400 InvalidRequest whose data names the offending field. */
function expectInvalid(res: ApiResponse, field: string): void {
  expectError(res, 400, "InvalidRequest", "Invalid Request");
  expect(res.json.data).toMatchObject({ error: "InvalidRequest", field });
  expect(res.json.data.error_message).toContain(`'${field}`);
}

const UNAUTHORIZED = [401, "Unauthorized", "Missing or invalid credentials"] as const;
const FORBIDDEN = [403, "Forbidden", "Credentials do not grant access to this account"] as const;

function basic(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`;
}

function validSend(over: Record<string, unknown> = {}): Record<string, unknown> {
  return { accountId: account.accountId, from: account.numbers[0], to: DEST, body: "hello", ...over };
}

function without(body: Record<string, unknown>, ...keys: string[]): Record<string, unknown> {
  const copy = { ...body };
  for (const key of keys) delete copy[key];
  return copy;
}

function send(body: unknown, headers: Record<string, string> = account.headers): Promise<ApiResponse> {
  return call(server, "POST", "/v3/messages", { headers, body });
}

function sendRaw(rawBody: string | undefined, headers: Record<string, string> = account.headers): Promise<ApiResponse> {
  return call(server, "POST", "/v3/messages", { headers, rawBody });
}

function expectSent(res: ApiResponse, destinations = 1): void {
  expect(res.status).toBe(200);
  expect(res.json).toMatchObject({ status: "MessageCreateSuccessful", statusCode: 200 });
  expect(res.json.data.messageInfo).toHaveLength(destinations);
}

// ---------------------------------------------------------------------------------------------------------------

describe("POST /v3/messages: the request body", () => {
  it("answers MissingJSON when there is no body at all", async () => {
    expectError(await sendRaw(undefined), 400, "MissingJSON", "JSON required");
  });

  it.each([
    ["empty", ""],
    ["blank", "  \n "],
  ])("answers MissingJSON for an %s body", async (_label, raw) => {
    expectError(await sendRaw(raw), 400, "MissingJSON", "JSON required");
  });

  it.each([
    ["truncated", '{"accountId": '],
    ["single-quoted", "{'accountId': 'x'}"],
    ["trailing comma", '{"accountId": "x",}'],
  ])("answers InvalidJSON for %s JSON sent as application/json", async (_label, raw) => {
    expectError(await sendRaw(raw), 400, "InvalidJSON", "The JSON request is not valid.");
  });

  it.each([
    ["an array", "[]"],
    ["an array of objects", JSON.stringify([{ to: DEST, body: "x" }])],
    ["a number", "42"],
    ["a string", '"hello"'],
    ["null", "null"],
  ])("answers InvalidRequest when the JSON is %s, not an object", async (_label, raw) => {
    const res = await sendRaw(raw);
    expectError(res, 400, "InvalidRequest", "Invalid Request");
    expect(res.json.data.error_message).toMatch(/object/);
  });
});

describe("POST /v3/messages: the decided check order", () => {
  it("reports MissingAccountId first when accountId and from are both missing", async () => {
    expectError(await send({ to: DEST, body: "x" }), 400, "MissingAccountId", "'accountId' is required");
    expectError(await send({}), 400, "MissingAccountId", "'accountId' is required");
  });

  it.each([
    ["null", null],
    ["empty text", ""],
  ])("treats an accountId of %s as missing", async (_label, value) => {
    expectError(await send(validSend({ accountId: value })), 400, "MissingAccountId", "'accountId' is required");
  });

  it("reports MissingFrom when accountId is there but from is not", async () => {
    expectError(await send(without(validSend(), "from")), 400, "MissingFrom", "'from' is required");
    expectError(await send({ accountId: account.accountId }), 400, "MissingFrom", "'from' is required");
  });

  it("checks presence before types: a malformed accountId without from is MissingFrom", async () => {
    expectError(await send({ accountId: "not-a-uuid", to: DEST, body: "x" }), 400, "MissingFrom", "'from' is required");
  });

  it("reports MissingTo when neither to nor toArray is given", async () => {
    expectError(await send(without(validSend(), "to")), 400, "MissingTo", "'to' or 'toArray' is required");
    expectError(await send(validSend({ to: null })), 400, "MissingTo", "'to' or 'toArray' is required");
  });

  it("reports MissingBody when neither body nor media is given", async () => {
    const message = "'body' is required (not required when media is sent)";
    expectError(await send(without(validSend(), "body")), 400, "MissingBody", message);
    expectError(await send(validSend({ body: "", media: [] })), 400, "MissingBody", message);
    // ...and before any type or limit check
    expectError(await send(without(validSend({ referenceId: "bad ref" }), "body")), 400, "MissingBody", message);
  });

  it("refuses to and toArray together", async () => {
    const res = await send(validSend({ toArray: [DEST] }));
    expectError(res, 400, "InvalidRequest", "Invalid Request");
    expect(res.json.data.error_message).toBe("Only one of 'to' or 'toArray' is allowed");
  });

  it("treats an empty to beside a toArray as absent and sends to the toArray", async () => {
    const res = await send(validSend({ to: "", toArray: [DEST, "12125551234"] }));
    expectSent(res, 2);
    expect(res.json.data.messageInfo.map((i: { to: string; status: string }) => [i.to, i.status])).toEqual([
      ["+14155550123", "accepted"],
      ["+12125551234", "accepted"],
    ]);
  });

  it.each<[string, string, Record<string, unknown>]>([
    ["a referenceId with a space", "referenceId", { referenceId: "order 42" }],
    ["a referenceId of 41 characters", "referenceId", { referenceId: "a".repeat(41) }],
    ["a referenceId with a special character", "referenceId", { referenceId: "-" }],
    ["a toArray of 1001 entries", "toArray", { to: undefined, toArray: Array.from({ length: 1001 }, () => DEST) }],
    ["an empty toArray", "toArray", { to: undefined, toArray: [] }],
    ["a toArray that is not an array", "toArray", { to: undefined, toArray: DEST }],
    ["a body of 1601 characters", "body", { body: "a".repeat(1601) }],
    ["a body that is not text", "body", { body: 42 }],
    ["11 media URLs", "media", { media: Array.from({ length: 11 }, (_, i) => `https://example.com/${i}.jpg`) }],
    ["an ftp:// media URL", "media", { media: ["ftp://example.com/cat.jpg"] }],
    ["a media entry that is no URL", "media", { media: ["cat.jpg"] }],
    ["a userId of 101 characters", "userId", { userId: "u".repeat(101) }],
    ["a userType of 101 characters", "userType", { userType: "t".repeat(101) }],
    ["bulk as text", "bulk", { bulk: "yes" }],
    ["conversational as a number", "conversational", { conversational: 1 }],
    ["optLogic as text", "optLogic", { optLogic: "true" }],
    ["an accountId that is not a UUID", "accountId", { accountId: "not-a-uuid" }],
    ["a from that is not text", "from", { from: 14155550123 }],
    ["a to that is not text", "to", { to: 14155550123 }],
  ])("answers InvalidRequest naming the field for %s", async (_label, field, over) => {
    expectInvalid(await send(validSend(over)), field);
  });

  it("accepts every limit at its edge", async () => {
    const res = await send(
      validSend({
        referenceId: "a".repeat(40),
        body: "a".repeat(1600),
        media: Array.from({ length: 10 }, (_, i) => `http://example.com/${i}.png`),
        userId: "u".repeat(100),
        userType: "t".repeat(100),
      }),
    );
    expectSent(res);
  });

  it("checks fields before access: another account with a bad referenceId is InvalidRequest", async () => {
    const res = await send({
      accountId: other.accountId,
      from: other.numbers[0],
      to: DEST,
      body: "x",
      referenceId: "no good",
    });
    expectInvalid(res, "referenceId");
  });

  it("answers 403 for another account once the fields are good", async () => {
    const res = await send({
      accountId: other.accountId,
      from: other.numbers[0],
      to: DEST,
      body: "x",
      referenceId: "good1",
    });
    expectError(res, ...FORBIDDEN);
  });

  it("checks access before the from number: another account with an invalid from is 403", async () => {
    expectError(await send({ accountId: other.accountId, from: "123", to: DEST, body: "x" }), ...FORBIDDEN);
  });

  it.each([
    ["too short", "123"],
    ["not a real US number (555 area code)", "15551234567"],
    ["letters", "1415CALLNOW"],
  ])("answers InvalidNumber for a from that is %s", async (_label, from) => {
    expectError(await send(validSend({ from })), 400, "InvalidNumber", "'from' is not valid number");
  });

  it("checks fields before the from number: an invalid from with a bad referenceId is InvalidRequest", async () => {
    expectInvalid(await send(validSend({ from: "123", referenceId: "a b" })), "referenceId");
  });

  it("ignores unknown fields", async () => {
    const res = await send(validSend({ color: "blue", nested: { deep: [1, 2] }, priority: 9 }));
    expectSent(res);
    expect(res.json.data.messageInfo[0].status).toBe("accepted");
  });
});

describe("credentials (401)", () => {
  const json = { "content-type": "application/json" };

  it("answers 401 without credentials", async () => {
    expectError(await send(validSend(), json), ...UNAUTHORIZED);
  });

  it.each([
    ["a key that does not exist", "pk_" + "A".repeat(32)],
    ["a key of the wrong shape", "not-a-key"],
    ["an empty key", ""],
  ])("answers 401 for %s", async (_label, key) => {
    expectError(await send(validSend(), { ...json, apikey: key }), ...UNAUTHORIZED);
  });

  it.each([
    ["not base64", () => "Basic !!!***"],
    ["without a colon", () => `Basic ${Buffer.from(account.accountId).toString("base64")}`],
    ["with no credentials after the scheme", () => "Basic "],
    ["another scheme", () => `Bearer ${account.apiKey}`],
    ["a wrong password", () => basic(account.accountId, "pk_" + "B".repeat(32))],
  ])("answers 401 for an Authorization header %s", async (_label, header) => {
    expectError(await send(validSend(), { ...json, authorization: header() }), ...UNAUTHORIZED);
  });

  it("answers 401 for Basic with the right key but another account's id as username", async () => {
    expectError(
      await send(validSend(), { ...json, authorization: basic(other.accountId, account.apiKey) }),
      ...UNAUTHORIZED,
    );
  });

  it("answers 401 when apikey and Basic are both valid but for different accounts", async () => {
    const headers = { ...json, apikey: account.apiKey, authorization: basic(other.accountId, other.apiKey) };
    expectError(await send(validSend(), headers), ...UNAUTHORIZED);
  });

  it("answers 401 when apikey is valid but the Basic beside it is not", async () => {
    const headers = { ...json, apikey: account.apiKey, authorization: "Basic !!!" };
    expectError(await send(validSend(), headers), ...UNAUTHORIZED);
  });

  it("accepts Basic alone (username = accountId, password = key)", async () => {
    expectSent(await send(validSend(), { ...json, authorization: basic(account.accountId, account.apiKey) }));
  });

  it("accepts apikey and Basic together for the same account", async () => {
    const headers = { ...json, apikey: account.apiKey, authorization: basic(account.accountId, account.apiKey) };
    expectSent(await send(validSend(), headers));
  });

  it("checks credentials before the body", async () => {
    expectError(await sendRaw('{"accountId": ', json), ...UNAUTHORIZED);
    expectError(await sendRaw(undefined, json), ...UNAUTHORIZED);
    expectError(await sendRaw("[]", { ...json, apikey: "pk_" + "C".repeat(32) }), ...UNAUTHORIZED);
  });

  it.each([
    ["the listing", () => `/v3/messages?accountId=${account.accountId}`],
    ["the listing without accountId", () => "/v3/messages"],
    ["SDRs", () => `/v3/sdrs/${account.accountId}/${UNKNOWN_UUID}`],
  ])("answers 401 without credentials on %s", async (_label, path) => {
    expectError(await call(server, "GET", path()), ...UNAUTHORIZED);
  });
});

describe("another account's resources (403)", () => {
  it("refuses a send for another account", async () => {
    expectError(await send({ accountId: other.accountId, from: other.numbers[0], to: DEST, body: "x" }), ...FORBIDDEN);
  });

  it("refuses to list another account's messages", async () => {
    const res = await call(server, "GET", `/v3/messages?accountId=${other.accountId}`, { headers: account.headers });
    expectError(res, ...FORBIDDEN);
    expect(res.text).not.toContain(otherMessageId);
  });

  it("refuses another account's SDRs, whether the message exists or not", async () => {
    const real = await call(server, "GET", `/v3/sdrs/${other.accountId}/${otherMessageId}`, {
      headers: account.headers,
    });
    const unknown = await call(server, "GET", `/v3/sdrs/${other.accountId}/${UNKNOWN_UUID}`, {
      headers: account.headers,
    });
    expectError(real, ...FORBIDDEN);
    expectError(unknown, ...FORBIDDEN);
    expect(real.json).toEqual(unknown.json);
  });
});

describe("GET /v3/messages: query errors", () => {
  const list = (query: string) => call(server, "GET", `/v3/messages${query}`, { headers: account.headers });

  it("answers MissingAccountId without accountId", async () => {
    expectError(await list(""), 400, "MissingAccountId", "'accountId' is required");
    expectError(await list("?count=10"), 400, "MissingAccountId", "'accountId' is required");
    expectError(await list("?accountId="), 400, "MissingAccountId", "'accountId' is required");
  });

  it("answers InvalidRequest for an accountId that is not a UUID", async () => {
    expectInvalid(await list("?accountId=nope"), "accountId");
  });

  it.each([
    ["count", "0"],
    ["count", "1001"],
    ["count", "abc"],
    ["count", "1.5"],
    ["start", "-1"],
    ["start", "x"],
    ["sortBy", "body"],
    ["sortDir", "up"],
    ["direction", "sideways"],
    ["messageType", "fax"],
    ["status", "lost"],
    ["timestampBegin", "yesterday"],
    ["timestampEnd", "2026-13-45"],
    ["messageId", "not-a-uuid"],
    ["referenceId", "a-b"],
    ["from", "phone"],
  ])("answers InvalidRequest naming %s for %s", async (parameter, value) => {
    expectInvalid(await list(`?accountId=${account.accountId}&${parameter}=${encodeURIComponent(value)}`), parameter);
  });

  it("accepts the edges of count and a listing-form timestamp", async () => {
    for (const query of [
      "count=1",
      "count=1000",
      "start=0",
      "timestampBegin=2026-01-01%2000:00:00.000",
      "sortDir=ASC",
    ]) {
      const res = await list(`?accountId=${account.accountId}&${query}`);
      expect({ query, status: res.status, code: res.json.status }).toEqual({
        query,
        status: 200,
        code: "QueryCompletedSuccessfully",
      });
    }
  });
});

describe("GET /v3/sdrs/{accountId}/{messageId}: unknown messages (404)", () => {
  const sdrs = (accountId: string, messageId: string) =>
    call(server, "GET", `/v3/sdrs/${accountId}/${messageId}`, { headers: account.headers });

  function expectNotFound(res: ApiResponse): void {
    expectError(res, 404, "MessageNotFound", "Message not found");
    expect(res.json.data.results).toEqual({
      error: "MessageNotFound",
      errorCode: 404,
      errorMessage: "Message not found",
      errorUrl: res.json.statusUri,
    });
  }

  it("answers MessageNotFound for an unknown UUID", async () => {
    expectNotFound(await sdrs(account.accountId, UNKNOWN_UUID));
  });

  it("answers MessageNotFound for an id that is not a UUID", async () => {
    expectNotFound(await sdrs(account.accountId, "12345"));
    expectNotFound(await sdrs(account.accountId, "not%20an%20id"));
  });

  it("answers another account's message, asked under your own account, exactly like an unknown one", async () => {
    const theirs = await sdrs(account.accountId, otherMessageId);
    const unknown = await sdrs(account.accountId, UNKNOWN_UUID);
    expectNotFound(theirs);
    expect(theirs.json).toEqual(unknown.json);
    expect(theirs.text).not.toContain(otherMessageId);
  });

  it("answers InvalidRequest for an accountId in the path that is not a UUID", async () => {
    expectInvalid(await sdrs("not-an-account", UNKNOWN_UUID), "accountId");
  });
});

describe("other methods and paths", () => {
  it.each(["PUT", "DELETE"])("answers %s /v3/messages with ResourceNotAllowed", async (method) => {
    const res = await call(server, method, "/v3/messages", { headers: account.headers, body: validSend() });
    expectError(res, 400, "ResourceNotAllowed", `Resource not allowed on ${method}`);
  });

  it("answers ResourceNotAllowed whoever asks, even without credentials", async () => {
    expectError(
      await call(server, "DELETE", "/v3/messages"),
      400,
      "ResourceNotAllowed",
      "Resource not allowed on DELETE",
    );
  });

  it.each([
    ["GET", "/v3/nothing"],
    ["POST", "/v3/nothing"],
    ["GET", "/v3"],
    ["POST", "/v3"],
    ["GET", "/v3/messages/extra"],
    ["POST", "/v3/messages/extra"],
    ["GET", "/v3/sdrs/only-one-segment"],
  ])("answers %s %s with UnknownResource", async (method, path) => {
    const res = await call(server, method, path, {
      headers: account.headers,
      body: method === "POST" ? validSend() : undefined,
    });
    expectError(res, 400, "UnknownResource", `Unknown resource on ${method}`);
  });
});

// Last in the file: the database is broken under the running server (and repaired afterwards).
describe("internal failure (500)", () => {
  const GONE = "Message_gone";

  async function renameMessageTable(from: string, to: string): Promise<void> {
    const sql = `ALTER TABLE "${from}" RENAME TO "${to}"`;
    if (server.database.provider === "sqlite") {
      const file = new Database(sqliteFilePath(server.database.url));
      try {
        file.exec(sql);
      } finally {
        file.close();
      }
    } else {
      const client = new pg.Client({ connectionString: server.database.url });
      await client.connect();
      try {
        await client.query(sql);
      } finally {
        await client.end();
      }
    }
  }

  /** The server's error-level (pino level >= 50) JSON log line carrying this request id, if written yet. */
  function errorLogLine(requestId: string): { level: number; reqId?: string; msg?: string } | undefined {
    return server
      .output()
      .split("\n")
      .filter((line) => line.startsWith("{") && line.includes(requestId))
      .map((line) => JSON.parse(line) as { level: number; reqId?: string; msg?: string })
      .find((entry) => entry.level >= 50);
  }

  async function waitFor<T>(probe: () => T | undefined, ms: number): Promise<T | undefined> {
    const deadline = Date.now() + ms;
    for (;;) {
      const found = probe();
      if (found !== undefined || Date.now() > deadline) return found;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  beforeAll(() => renameMessageTable("Message", GONE));
  afterAll(() => renameMessageTable(GONE, "Message"));

  it("answers SystemFailure with the seed envelope, no internals, and logs the request id", async () => {
    const res = await send(validSend());
    expectError(res, 500, "SystemFailure", "General System Failure");
    const requestId = res.headers.get("x-request-id")!;

    for (const leak of [
      /prisma/i,
      /\bat \S+ \(/,
      /\.ts\b|\.js\b/,
      /\/work\/|\/tmp\/|node_modules/,
      /Message_gone|"Message"/,
      /\b(SELECT|INSERT|ALTER|relation|no such table)\b/i,
    ]) {
      expect(res.text).not.toMatch(leak);
    }

    // The server logs before it answers, but its stdout reaches this process through a pipe that may lag the socket.
    const errorLine = await waitFor(() => errorLogLine(requestId), 5_000);
    expect(errorLine, `no error log line with reqId ${requestId} in:\n${server.output()}`).toBeDefined();
    expect(errorLine!.reqId).toBe(requestId);
  });

  it("answers SystemFailure on the listing too", async () => {
    const res = await call(server, "GET", `/v3/messages?accountId=${account.accountId}`, { headers: account.headers });
    expectError(res, 500, "SystemFailure", "General System Failure");
    expect(res.text).not.toMatch(/prisma|Message_gone/i);
  });
});
