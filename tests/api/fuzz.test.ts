import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../helpers/server";
import { createKey, createTestAccount, randomNumber, releaseFactories, type TestAccount } from "../helpers/factories";
import { portalCookie } from "../helpers/portal-session";
import { rawExchange, rawRequest, type RawRequest, type RawResponse } from "../helpers/raw-http";
import { createUser } from "../../lib/accounts/manage-accounts";

// Generated requests at every route of /v3 and /api (found by walking app/, so a route added later is fuzzed too)
// and at paths that are none: generated methods, path bytes, query strings, headers and bodies, with valid
// credentials and without. Whatever is sent, the server answers below 500, every error is the envelope with the
// HTTP status as its statusCode, no answer carries a stack trace, and the server still works afterwards.
// The seed is fixed (PARLEY_FUZZ_SEED overrides it) and fast-check prints it with the failing request.

const SEED = Number(process.env.PARLEY_FUZZ_SEED ?? 20_261_122);
const root = join(import.meta.dirname, "..", "..");
const DEST = "14155550123";
const password = "correct horse battery";

// ---------------------------------------------------------------------------------------------------------------
// The routes, from the source tree.

interface Route {
  /** Segments of the route's path: literals, `[param]` and `[...rest]` as in the folder names. */
  segments: string[];
  methods: string[];
}

const HTTP_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];

function exportedMethods(source: string): string[] {
  const found = new Set<string>();
  for (const m of source.matchAll(/export (?:const|(?:async )?function) ([A-Z]+)\b/g)) found.add(m[1]!);
  for (const m of source.matchAll(/export \{([^}]*)\}/g)) {
    for (const item of m[1]!.split(","))
      found.add(
        item
          .trim()
          .split(/\s+as\s+/)
          .pop()!,
      );
  }
  return [...found].filter((name) => HTTP_METHODS.includes(name));
}

function routesUnder(dir: string): Route[] {
  const found: Route[] = [];
  const walk = (current: string) => {
    for (const name of readdirSync(current)) {
      const full = join(current, name);
      if (statSync(full).isDirectory()) walk(full);
      else if (name === "route.ts") {
        const segments = relative(join(root, "app"), current).split("/").filter(Boolean);
        found.push({ segments, methods: exportedMethods(readFileSync(full, "utf8")) });
      }
    }
  };
  walk(dir);
  return found;
}

const v3Routes = routesUnder(join(root, "app", "v3"));
const adminRoutes = routesUnder(join(root, "app", "api", "admin"));
const otherApiRoutes = routesUnder(join(root, "app", "api")).filter((r) => r.segments[1] !== "admin");

// ---------------------------------------------------------------------------------------------------------------
// The server and who calls it.

let server: RunningServer;
let account: TestAccount;
let other: TestAccount;
let cookie: string;
let messageId: string;
let spareUserId: string;
let spareKeyId: string;
let requests = 0;
const started = Date.now();

beforeAll(async () => {
  server = await startServer();
  account = await createTestAccount(server, { numbers: 3 });
  other = await createTestAccount(server);
  const email = `admin-${account.accountId}@example.com`;
  await createUser({ accountId: account.accountId, email, password, role: "admin", name: "Ada Admin" });
  // A user and a key the fuzzer may change, disable or revoke; the ones it signs in with stay out of its reach.
  const spare = await createUser({
    accountId: account.accountId,
    email: `spare-${account.accountId}@example.com`,
    password,
    role: "agent",
    name: "Spare",
  });
  spareUserId = spare.id;
  spareKeyId = (await createKey(server, account.accountId)).id;
  cookie = await portalCookie(server, email, password);
  const sent = await rawRequest(server, {
    method: "POST",
    path: "/v3/messages",
    headers: account.headers,
    body: JSON.stringify({ accountId: account.accountId, from: account.numbers[0], to: DEST, body: "fuzz" }),
  });
  messageId = sent.json!.data.messageInfo[0].messageId;
});

afterAll(async () => {
  const seconds = (Date.now() - started) / 1000;
  console.log(`fuzz (${server?.database.provider}): ${requests} requests in ${seconds.toFixed(1)} s, seed ${SEED}`);
  await releaseFactories();
  await server?.stop();
});

// ---------------------------------------------------------------------------------------------------------------
// What an attacker varies.

const SERVED = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"];
// Methods node:http's parser knows (answered by the request handler) and some it does not (answered by its
// clientError handler). CONNECT has its own test: a client sees no response event for it.
const OTHER_METHODS = ["OPTIONS", "TRACE", "PROPFIND", "PROPPATCH", "MKCOL", "COPY", "MOVE", "LOCK", "UNLOCK"]
  .concat(["REPORT", "SEARCH", "PURGE", "LINK", "UNLINK", "M-SEARCH", "NOTIFY", "SUBSCRIBE", "MKCALENDAR"])
  .concat(["ACL", "BIND", "SOURCE", "QUERY", "BREW", "FOO", "X-CUSTOM"]);

const methodFor = (route: Route) =>
  fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...(route.methods.length > 0 ? route.methods : SERVED)) },
    { weight: 2, arbitrary: fc.constantFrom(...SERVED) },
    { weight: 2, arbitrary: fc.constantFrom(...OTHER_METHODS) },
  );

const BAD_ESCAPES = ["%ZZ", "%", "%E2%82", "%C0%AF", "%FF", "%00", "%ED%A0%80", "%2", "%G1", "%F0%90%80", "a%00b"];
const badEscape = fc.constantFrom(...BAD_ESCAPES);
const dotSegment = fc.constantFrom(".", "..", "%2e", "%2E%2E", ".%2e", "");
/** Text of any code points, percent-encoded (lone surrogates, which encodeURIComponent refuses, as bad escapes). */
const encodedText = (unit: "grapheme" | "binary") =>
  fc.string({ unit, minLength: 1, maxLength: 12 }).map((text) => {
    try {
      return encodeURIComponent(text);
    } catch {
      return "%ED%B0%80";
    }
  });
/** Bytes node:http sends as they are (0x21-0xFF): characters above 0x7F are no valid request line. */
const rawBytes = fc
  .uint8Array({ minLength: 1, maxLength: 4 })
  .map((bytes) => Buffer.from(bytes.map((b) => (b < 0x21 ? b + 0x80 : b))).toString("latin1"));
const junkSegment = fc.oneof(
  { weight: 4, arbitrary: fc.webSegment() },
  { weight: 2, arbitrary: encodedText("grapheme") },
  { weight: 2, arbitrary: encodedText("binary") },
  { weight: 2, arbitrary: badEscape },
  { weight: 1, arbitrary: rawBytes },
);

function paramValue(name: string): fc.Arbitrary<string> {
  const known: Record<string, () => string[]> = {
    accountId: () => [account.accountId, account.accountId, account.accountId, other.accountId],
    messageId: () => [messageId, "00000000-0000-4000-8000-000000000000"],
    number: () => [account.numbers[2]!, `%2B${account.numbers[2]}`, other.numbers[0]!, "15551234567"],
    userId: () => [spareUserId],
    keyId: () => [spareKeyId],
    conversationId: () => ["00000000-0000-4000-8000-000000000000"],
  };
  const values = known[name]?.() ?? [];
  return fc.oneof(
    { weight: values.length > 0 ? 6 : 0, arbitrary: fc.constantFrom(...(values.length > 0 ? values : ["x"])) },
    { weight: 1, arbitrary: fc.uuid() },
    { weight: 3, arbitrary: junkSegment },
  );
}

function segmentFor(template: string): fc.Arbitrary<string[]> {
  const rest = /^\[\.\.\.(.+)\]$/.exec(template);
  if (rest) {
    const known = rest[1] === "nextauth" ? ["session", "csrf", "providers", "signin", "signout", "error"] : ["x"];
    return fc.oneof(
      fc.constantFrom(...known).map((s) => [s]),
      fc.array(junkSegment, { minLength: 1, maxLength: 3 }),
    );
  }
  const param = /^\[(.+)\]$/.exec(template);
  if (param) return paramValue(param[1]!).map((s) => [s]);
  return fc.oneof(
    { weight: 12, arbitrary: fc.constant(template).map((s) => [s]) },
    { weight: 1, arbitrary: fc.mixedCase(fc.constant(template)).map((s) => [s]) },
    { weight: 1, arbitrary: badEscape.map((bad) => [template + bad]) },
  );
}

/** A path to the route, now and then bent: a segment inserted, a trailing slash, a backslash, a doubled slash. */
function pathFor(route: Route): fc.Arbitrary<string> {
  const parts = fc.tuple(...route.segments.map(segmentFor)).map((lists) => lists.flat());
  const insertion = fc.option(fc.tuple(fc.nat(), fc.oneof(dotSegment, badEscape, junkSegment)), { freq: 6 });
  const joint = fc.constantFrom("/", "/", "/", "/", "/", "/", "//", "\\");
  const ending = fc.constantFrom("", "", "", "", "", "/", "/.", "%2F");
  return fc.tuple(parts, insertion, joint, fc.nat(), ending).map(([segments, inserted, sep, at, end]) => {
    const list = [...segments];
    if (inserted) list.splice(1 + (inserted[0] % list.length), 0, inserted[1]);
    const joined = list.map((s, i) => (i === 0 ? `/${s}` : (at % list.length === i ? sep : "/") + s)).join("");
    return joined + end;
  });
}

const QUERY_KEYS = ["accountId", "count", "start", "sortBy", "sortDir", "timestampBegin", "timestampEnd", "body"]
  .concat(["from", "to", "messageId", "referenceId", "status", "direction", "messageType", "q", "format", "limit"])
  .concat(["since", "until", "cursor", "after", "kind", "filter", "include", "conversationId", "number", "page"]);

const queryValue = fc.oneof(
  fc.constantFrom("0", "1", "-1", "10", "1000", "1001", "1e400", "99999999999999999999999", "NaN", "1.5", "0x10"),
  fc.constantFrom("asc", "desc", "timestamp", "csv", "json", "outbound", "sms", "queued", "2026-01-01", "true"),
  fc.constantFrom(DEST, "%2B14155550123", "a".repeat(3000), "%00", ""),
  fc.constant(null).map(() => account.accountId),
  encodedText("grapheme"),
  encodedText("binary"),
  badEscape,
);

const query = fc.option(
  fc.oneof(
    fc
      .array(fc.tuple(fc.oneof(fc.constantFrom(...QUERY_KEYS), junkSegment), queryValue), { maxLength: 5 })
      .map((pairs) => "?" + pairs.map(([k, v]) => `${k}=${v}`).join("&")),
    fc.constantFrom("?", "?&&", "?=", "?a==b", "?%ZZ=%ZZ", "?accountId", "?count[]=1&count[]=2"),
  ),
  { freq: 2, nil: "" },
);

const CONTENT_TYPES = ["application/json", "application/json; charset=utf-8", "text/plain", "application/xml"]
  .concat(["application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/vnd.api+json"])
  .concat(["application/json; charset=latin1", "", "*/*", "application/json, text/plain", "json"]);

type Auth = "key" | "basic" | "cookie" | "none" | "unknownKey" | "otherKey" | "badBasic" | "keyAndCookie";
const AUTHS: Auth[] = ["key", "key", "cookie", "cookie", "basic", "none", "unknownKey", "otherKey", "badBasic"];

function authHeaders(auth: Auth): Record<string, string> {
  const basic = (user: string, pass: string) => `Basic ${Buffer.from(`${user}:${pass}`).toString("base64")}`;
  switch (auth) {
    case "key":
      return { apikey: account.apiKey };
    case "basic":
      return { authorization: basic(account.accountId, account.apiKey) };
    case "cookie":
      return { cookie };
    case "keyAndCookie":
      return { apikey: account.apiKey, cookie };
    case "unknownKey":
      return { apikey: "pk_" + "Z".repeat(32) };
    case "otherKey":
      return { apikey: other.apiKey };
    case "badBasic":
      return { authorization: "Basic !!!" };
    case "none":
      return {};
  }
}

const EXTRA_HEADERS: Record<string, string>[] = [
  { expect: "100-continue" },
  { "transfer-encoding": "chunked" },
  { connection: "upgrade", upgrade: "websocket" },
  { connection: "upgrade", upgrade: "h2c" },
  { host: "[::" },
  { host: "" },
  { host: "a b" },
  { "x-forwarded-for": "not an address, 999.1.1.1" },
  { "x-forwarded-host": "evil.example" },
  { cookie: "next-auth.session-token=garbage; __Secure-next-auth.session-token=" },
  { "content-encoding": "gzip" },
  { accept: "text/html" },
  { range: "bytes=0-1" },
  { "if-none-match": "*" },
  { "x-request-id": "x".repeat(500) },
  { "x-request-id": "ok-123" },
  { "x-http-method-override": "DELETE" },
  { "next-router-state-tree": "%ZZ" },
  { rsc: "1" },
  { "next-action": "abc" },
];

const headers = fc
  .record({
    auth: fc.constantFrom(...AUTHS),
    contentType: fc.option(fc.constantFrom(...CONTENT_TYPES), { freq: 4 }),
    idempotencyKey: fc.option(
      fc.oneof(
        fc.constantFrom("", "k".repeat(255), "k".repeat(256), "key-1", "\u00e9t\u00e9", "a b\tc"),
        fc.string({ minLength: 1, maxLength: 40 }).filter((s) => /^[\x20-\x7e]+$/.test(s)),
      ),
      { freq: 3 },
    ),
    acceptEncoding: fc.option(fc.constantFrom("gzip", "br", "deflate", "gzip, br", "identity", "*"), { freq: 3 }),
    extra: fc.option(fc.constantFrom(...EXTRA_HEADERS), { freq: 4 }),
  })
  .map(({ auth, contentType, idempotencyKey, acceptEncoding, extra }) => {
    const out: Record<string, string> = { ...authHeaders(auth) };
    if (contentType !== null) out["content-type"] = contentType;
    if (idempotencyKey !== null) out["idempotency-key"] = idempotencyKey;
    if (acceptEncoding !== null) out["accept-encoding"] = acceptEncoding;
    return { ...out, ...extra };
  });

const BODY_KEYS = ["accountId", "from", "to", "toArray", "body", "media", "referenceId", "userId", "userType"]
  .concat(["conversational", "bulk", "optLogic", "url", "headerName", "headerValue", "number", "label"])
  .concat(["ratePerSecond", "name", "email", "password", "role", "disabled", "timeZone", "rateLimitPerSecond"])
  .concat(["bulkShare", "bulkWindowStart", "bulkWindowEnd", "footer", "stopReply", "startReply", "helpReply"])
  .concat(["action", "read", "text", "eventId", "eventIds", "ids", "expiresAt", "note", "status", "kind", "extra"]);

const weirdValue = fc.oneof(
  fc.constantFrom<unknown>("https://example.com/hook", "http://127.0.0.1:1/x", "admin", "agent", "out", "in", ""),
  fc.constantFrom<unknown>(true, false, null, 0, -1, 1.5, 1e308, -1e308, 5e-324, 2 ** 53 + 1, " ", "2026-01-01"),
  fc.constant(null).map(() => account.accountId),
  fc.constant(null).map(() => account.numbers[0]),
  fc.constant(DEST),
  fc.constant("x".repeat(3000)),
  fc.string({ unit: "grapheme", maxLength: 30 }),
  fc.string({ unit: "binary", maxLength: 30 }),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.array(fc.oneof(fc.string(), fc.constant(DEST)), { maxLength: 3 }),
  fc.jsonValue({ maxDepth: 3 }),
);

const nested = (levels: number, open: string, close: string) => open.repeat(levels) + "1" + close.repeat(levels);

const body = fc.option(
  fc.oneof(
    { weight: 6, arbitrary: fc.dictionary(fc.constantFrom(...BODY_KEYS), weirdValue, { maxKeys: 8 }).map(json) },
    { weight: 2, arbitrary: fc.json({ maxDepth: 4 }) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.constantFrom(60, 62, 63, 64, 65, 100, 5_000), fc.constantFrom(["[", "]"], ['{"a":', "}"]))
        .map(([levels, [open, close]]) => `{"accountId":"${account.accountId}","x":${nested(levels, open!, close!)}}`),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '{"count":1e400}',
        '{"ratePerSecond":123456789012345678901234567890,"number":"+14155550100"}',
        '{"rateLimitPerSecond":-1e308,"bulkShare":1e400}',
        "[1e999]",
        '{"to":1e21,"toArray":[1e400]}',
        '{"body":"a\\u0000b"}',
        '{"body":"\\ud800"}',
        '{"__proto__":{"admin":true},"constructor":{"prototype":{"x":1}}}',
        "accountId=x&from=y&to=z",
        "{" + '"a":1,'.repeat(20_000) + '"b":2}',
      ),
    },
    { weight: 1, arbitrary: fc.uint8Array({ minLength: 1, maxLength: 64 }).map((bytes) => Buffer.from(bytes)) },
  ),
  { freq: 3, nil: undefined },
);

function json(value: unknown): string {
  return JSON.stringify(value);
}

const requestTo = (routes: Route[]) =>
  fc
    .constantFrom(...routes)
    .chain((route) => fc.record({ method: methodFor(route), path: pathFor(route), query, headers, body }))
    .map(({ method, path, query, headers, body }): RawRequest => ({ method, path: path + query, headers, body }));

// ---------------------------------------------------------------------------------------------------------------
// What must hold of every answer.

const STACK_FRAME = /\bat (?:async )?\S+ \(?\S+:\d+:\d+\)?/;
const INTERNALS = /\b(?:[A-Z][a-zA-Z]*)?Error: |node_modules|\/work\/|PrismaClient|\.tsx?:\d+/;

/** Successes that are not the envelope by design: the health probe, the OpenAPI document, CSV, next-auth's own. */
function exempt(request: RawRequest, res: RawResponse): boolean {
  if (res.status >= 400) return false;
  if (String(res.headers["content-type"]).startsWith("text/csv")) return true;
  if (res.json && ("openapi" in res.json || ("database" in res.json && "uptimeSeconds" in res.json))) return true;
  return /\/api\/+auth/i.test(request.path.replaceAll("\\", "/"));
}

function describeExchange(request: RawRequest, res: RawResponse): string {
  const body = request.body === undefined ? "" : String(request.body).slice(0, 300);
  return `${request.method} ${request.path.slice(0, 300)} ${JSON.stringify(request.headers)} ${body}\n→ ${res.status} ${JSON.stringify(res.headers)} ${res.text.slice(0, 500)}`;
}

/**
 * Whether the request is for the API (where every answer is the envelope), however spelled: any case, encoded
 * slashes, an absolute-form target. Other paths (the portal's pages) only must not fail or leak.
 */
function forTheApi(target: string): boolean {
  let path = target.replace(/^[a-z]+:\/\/[^/]*/i, "");
  try {
    path = decodeURIComponent(path);
  } catch {
    // as sent
  }
  return /^[/\\]+(v3|api)([/\\?#]|$)/i.test(path);
}

function checkAnswer(request: RawRequest, res: RawResponse): void {
  const what = describeExchange(request, res);
  expect(res.status, what).toBeGreaterThanOrEqual(200);
  expect(res.status, what).toBeLessThan(500);
  expect(res.text, what).not.toMatch(STACK_FRAME);
  if (res.status >= 400) expect(res.text, what).not.toMatch(INTERNALS);
  // Methods Parley does not serve are refused with the envelope on any path.
  const refusedMethod = !SERVED.includes(request.method);
  if (!forTheApi(request.path) && !refusedMethod) return;
  if (exempt(request, res)) return;
  expect(res.headers["content-type"], what).toMatch(/^application\/json/);
  expect(res.headers["x-request-id"], what).toMatch(/\S/);
  if (request.method === "HEAD") return;
  const envelope = res.json;
  expect(envelope, what).toBeDefined();
  expect(typeof envelope!.status, what).toBe("string");
  expect(envelope!.statusCode, what).toBe(res.status);
  expect(typeof envelope!.statusMessage, what).toBe("string");
  expect(typeof envelope!.statusUri, what).toBe("string");
  if (res.status >= 400) expect(envelope!.statusUri, what).toContain(`/docs#error-${envelope!.status}`);
  if (envelope!.data !== undefined) expect(envelope!.data.apiVersion, what).toBe("v3");
}

/** A server that died says why (its last log lines) instead of a bare ECONNREFUSED. */
function serverDied(error: unknown): never {
  if (server.process.exitCode !== null || server.process.signalCode !== null) {
    throw new Error(
      `the server exited (${server.process.exitCode ?? server.process.signalCode}):\n${server.output().slice(-4000)}`,
    );
  }
  throw error;
}

async function exchange(request: RawRequest): Promise<void> {
  requests++;
  checkAnswer(request, await rawRequest(server, request).catch(serverDied));
}

const runs = (n: number) => ({ seed: SEED, numRuns: n, endOnFailure: false });

// ---------------------------------------------------------------------------------------------------------------

describe(`generated requests (seed ${SEED})`, () => {
  it(`every /v3 route (${v3Routes.length} found)`, async () => {
    expect(v3Routes.length).toBeGreaterThanOrEqual(6);
    await fc.assert(fc.asyncProperty(requestTo(v3Routes), exchange), runs(800));
  }, 120_000);

  it(`every /api/admin route (${adminRoutes.length} found)`, async () => {
    expect(adminRoutes.length).toBeGreaterThanOrEqual(25);
    await fc.assert(fc.asyncProperty(requestTo(adminRoutes), exchange), runs(900));
  }, 120_000);

  it("the other /api routes (health, next-auth) and paths that are no route", async () => {
    const unknown: Route[] = [
      { segments: ["v3", "[...path]"], methods: SERVED },
      { segments: ["api", "[...path]"], methods: SERVED },
      { segments: ["api", "admin", "[...path]"], methods: SERVED },
      { segments: ["api", "admin", "accounts", "[accountId]", "[...path]"], methods: SERVED },
    ];
    await fc.assert(fc.asyncProperty(requestTo([...otherApiRoutes, ...unknown]), exchange), runs(350));
  }, 120_000);

  it("bytes that are barely HTTP", async () => {
    const line = fc.tuple(
      fc.oneof(fc.constantFrom(...SERVED, ...OTHER_METHODS), fc.string({ unit: "binary-ascii", maxLength: 8 })),
      fc.oneof(
        fc.constantFrom("/v3/messages", "/api/health", "/api/admin/accounts/x", "*", "/v3/%ZZ", "//", "http://h/v3"),
        fc.string({ unit: "binary", maxLength: 20 }).map((s) => "/" + s),
      ),
      fc.constantFrom("HTTP/1.1", "HTTP/1.0", "HTTP/2.0", "HTTP/1.1 extra", "", "http/1.1"),
      fc.array(
        fc.oneof(
          fc.constantFrom("Host: x", "Content-Length: -1", "Content-Length: 1e3", "Transfer-Encoding: gzip"),
          fc.constantFrom("X: \u00ff\u00fe", "Bad Header: 1", ": empty", "X:\u0000", "A".repeat(20_000) + ": b"),
          fc.string({ unit: "binary", maxLength: 30 }),
        ),
        { maxLength: 4 },
      ),
    );
    await fc.assert(
      fc.asyncProperty(line, async ([method, target, version, headerLines]) => {
        requests++;
        const text = `${method} ${target} ${version}\r\n${[...headerLines, "Connection: close"].join("\r\n")}\r\n\r\n`;
        const bytes = Buffer.from(text, "latin1");
        const res = await rawExchange(server, bytes).catch(serverDied);
        const request: RawRequest = { method, path: target, headers: {} };
        // A request the parser takes is answered as any other; one it refuses is a JSON 400.
        checkAnswer(request, res);
      }),
      runs(150),
    );
  }, 120_000);
});

describe("after the fuzzing", () => {
  it("the server is healthy, signs in and sends", async () => {
    expect(server.process.exitCode, server.output().slice(-4000)).toBeNull();
    expect(server.output()).not.toMatch(/uncaughtException|unhandledRejection/);
    const health = await rawRequest(server, { method: "GET", path: "/api/health" });
    expect(health.json).toMatchObject({ status: "ok", database: { ok: true } });
    const fresh = await portalCookie(server, `admin-${account.accountId}@example.com`, password);
    const settings = await rawRequest(server, {
      method: "GET",
      path: `/api/admin/accounts/${account.accountId}`,
      headers: { cookie: fresh },
    });
    expect(settings.status, settings.text).toBe(200);
    const sent = await rawRequest(server, {
      method: "POST",
      path: "/v3/messages",
      headers: account.headers,
      body: JSON.stringify({ accountId: account.accountId, from: account.numbers[0], to: randomNumber(), body: "ok" }),
    });
    expect(sent.json, sent.text).toMatchObject({ status: "MessageCreateSuccessful", statusCode: 200 });
    expect(sent.json!.data.messageInfo[0].status).toBe("accepted");
  });
});
