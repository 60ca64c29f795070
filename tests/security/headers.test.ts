import type { IncomingHttpHeaders } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../helpers/server";
import { createTestAccount, releaseFactories, type TestAccount } from "../helpers/factories";
import { portalCookie } from "../helpers/portal-session";
import { rawExchange, rawRequest } from "../helpers/raw-http";
import { createUser } from "../../lib/accounts/manage-accounts";

// Every kind of answer the server gives carries the security headers: pages (signed in or not, the 404 page),
// Next's static files, the API under /api and /v3 (fast path, successes and errors), /metrics, socket.io's own
// answers, and the answers written on a bare socket to requests that are not HTTP. A page's Content-Security-Policy
// has a nonce fresh for each request, and the page's scripts carry exactly that nonce.

const password = "correct horse battery";
const DATA_POLICY = "default-src 'none'; frame-ancestors 'none'";

let server: RunningServer;
let account: TestAccount;
let cookie: string;

beforeAll(async () => {
  server = await startServer();
  account = await createTestAccount(server, { name: "Headers Inc" });
  const email = `admin-${account.accountId}@example.com`;
  await createUser({ accountId: account.accountId, email, password, role: "admin", name: "Ada Admin" });
  cookie = await portalCookie(server, email, password);
});

afterAll(async () => {
  await releaseFactories();
  await server?.stop();
});

type HeaderBag = Headers | IncomingHttpHeaders;

function header(headers: HeaderBag, name: string): string | null {
  if (headers instanceof Headers) return headers.get(name);
  const value = headers[name];
  return value === undefined ? null : String(value);
}

/** The headers every answer carries, whatever it is. */
function expectCommonHeaders(headers: HeaderBag, what: string): void {
  expect(header(headers, "x-frame-options"), what).toBe("DENY");
  expect(header(headers, "x-content-type-options"), what).toBe("nosniff");
  expect(header(headers, "referrer-policy"), what).toBe("same-origin");
  expect(header(headers, "cross-origin-opener-policy"), what).toBe("same-origin");
  const permissions = header(headers, "permissions-policy") ?? "";
  for (const feature of ["camera", "microphone", "geolocation", "payment", "usb"]) {
    expect(permissions, what).toContain(`${feature}=()`);
  }
  // PUBLIC_URL is not https here: a browser must not be told to refuse plain HTTP.
  expect(header(headers, "strict-transport-security"), what).toBeNull();
}

function expectDataHeaders(headers: HeaderBag, what: string): void {
  expectCommonHeaders(headers, what);
  expect(header(headers, "content-security-policy"), what).toBe(DATA_POLICY);
}

/** The page's policy; answers its nonce. */
function expectPageHeaders(headers: HeaderBag, what: string): string {
  expectCommonHeaders(headers, what);
  const policy = header(headers, "content-security-policy") ?? "";
  const directives = new Map(
    policy.split(";").map((d) => {
      const [name, ...sources] = d.trim().split(/\s+/);
      return [name!, sources] as const;
    }),
  );
  expect(directives.get("default-src"), what).toEqual(["'none'"]);
  expect(directives.get("frame-ancestors"), what).toEqual(["'none'"]);
  expect(directives.get("object-src"), what).toEqual(["'none'"]);
  expect(directives.get("base-uri"), what).toEqual(["'self'"]);
  expect(directives.get("form-action"), what).toEqual(["'self'"]);
  expect(directives.get("connect-src"), what).toEqual(["'self'"]);
  const scripts = directives.get("script-src") ?? [];
  expect(scripts, what).toContain("'strict-dynamic'");
  expect(scripts, what).not.toContain("'unsafe-inline'");
  expect(scripts, what).not.toContain("'unsafe-eval'");
  expect(directives.get("style-src"), what).not.toContain("'unsafe-inline'");
  const nonce = scripts.map((s) => /^'nonce-([A-Za-z0-9+/=]+)'$/.exec(s)?.[1]).find(Boolean);
  expect(nonce, `${what}: a nonce in script-src`).toBeDefined();
  return nonce!;
}

/** Every <script> of the page carries the nonce of its policy (at least one inline script: Next's payload). */
function expectScriptsCarry(html: string, nonce: string, what: string): void {
  const tags = [...html.matchAll(/<script\b[^>]*>/g)].map((m) => m[0]);
  expect(tags.length, `${what}: script tags`).toBeGreaterThan(0);
  expect(
    tags.some((tag) => !/\bsrc=/.test(tag)),
    `${what}: an inline script`,
  ).toBe(true);
  for (const tag of tags) expect(tag, what).toContain(`nonce="${nonce}"`);
}

async function get(path: string, headers: Record<string, string> = {}) {
  const response = await fetch(server.baseUrl + path, { redirect: "manual", headers });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

describe("pages", () => {
  it("a signed-in portal page has a policy with a nonce that its scripts carry", async () => {
    const res = await get("/conversations", { cookie });
    expect(res.status).toBe(200);
    expect(res.text).toContain("Conversations");
    const nonce = expectPageHeaders(res.headers, "/conversations");
    expectScriptsCarry(res.text, nonce, "/conversations");
  });

  it("the nonce is new for every request, on the sign-in page as on the portal", async () => {
    const nonces = new Set<string>();
    for (const [path, headers] of [
      ["/login", {}],
      ["/login", {}],
      ["/", { cookie }],
      ["/", { cookie }],
    ] as const) {
      const res = await get(path, headers);
      expect(res.status, path).toBe(200);
      const nonce = expectPageHeaders(res.headers, path);
      expectScriptsCarry(res.text, nonce, path);
      nonces.add(nonce);
    }
    expect(nonces.size).toBe(4);
  });

  it("the API docs page, the 403 page and the 404 page carry the page policy", async () => {
    const docs = await get("/docs");
    expect(docs.status).toBe(200);
    expectScriptsCarry(docs.text, expectPageHeaders(docs.headers, "/docs"), "/docs");

    const missing = await get("/no-such-page");
    expect(missing.status).toBe(404);
    expect(missing.text).toContain("This page does not exist");
    expectScriptsCarry(missing.text, expectPageHeaders(missing.headers, "404"), "404");

    const agentEmail = `agent-${account.accountId}@example.com`;
    await createUser({ accountId: account.accountId, email: agentEmail, password, role: "agent", name: "Al" });
    const agent = await portalCookie(server, agentEmail, password);
    const refused = await get("/users", { cookie: agent });
    expect(refused.status).toBe(403);
    expect(refused.text).toContain("This page is for the account");
    expectScriptsCarry(refused.text, expectPageHeaders(refused.headers, "403"), "403");
  });

  it("a redirect to the sign-in page carries them too", async () => {
    const res = await get("/messages");
    expect(res.status).toBeGreaterThanOrEqual(300);
    expect(res.status).toBeLessThan(400);
    expectPageHeaders(res.headers, "redirect");
  });

  it("a nonce a client sends in its own content-security-policy header is not used", async () => {
    const res = await get("/login", { "content-security-policy": "script-src 'nonce-chosenbytheclient'" });
    const nonce = expectPageHeaders(res.headers, "/login");
    expect(nonce).not.toBe("chosenbytheclient");
    expect(res.text).not.toContain("chosenbytheclient");
    expectScriptsCarry(res.text, nonce, "/login");
  });
});

describe("everything that is not a page", () => {
  it("static files of the build", async () => {
    const login = await get("/login");
    const assets = [...login.text.matchAll(/(?:src|href)="(\/_next\/static\/[^"]+\.(?:js|css))"/g)].map((m) => m[1]!);
    expect(assets.some((a) => a.endsWith(".js"))).toBe(true);
    expect(assets.some((a) => a.endsWith(".css"))).toBe(true);
    for (const asset of [assets.find((a) => a.endsWith(".js"))!, assets.find((a) => a.endsWith(".css"))!]) {
      const res = await get(asset);
      expect(res.status, asset).toBe(200);
      // nosniff makes the browser hold these to their type: it must be right.
      expect(res.headers.get("content-type"), asset).toMatch(asset.endsWith(".js") ? /javascript/ : /text\/css/);
      expectDataHeaders(res.headers, asset);
    }
  });

  it("/api answers: health, the admin API (success, refusal, and Next's own error turned into the envelope)", async () => {
    const health = await get("/api/health");
    expect(health.status).toBe(200);
    expectDataHeaders(health.headers, "/api/health");

    const dashboard = await get(`/api/admin/accounts/${account.accountId}/dashboard`, { cookie });
    expect(dashboard.status).toBe(200);
    expectDataHeaders(dashboard.headers, "admin dashboard");

    const unsigned = await get(`/api/admin/accounts/${account.accountId}/dashboard`);
    expect(unsigned.status).toBe(401);
    expectDataHeaders(unsigned.headers, "admin without a session");

    // A method the route does not export: Next answers 405 itself, and the server makes that the envelope.
    const wrongMethod = await rawRequest(server, {
      method: "PATCH",
      path: "/api/health",
      headers: { host: "x", "content-type": "application/json" },
      body: "{}",
    });
    expect(wrongMethod.json).toMatchObject({ status: "ResourceNotAllowed", statusCode: 400 });
    expectDataHeaders(wrongMethod.headers, "Next's 405 as the envelope");
  });

  it("/v3 on the fast path: a success, a refusal, an unknown path", async () => {
    const list = await get(`/v3/messages?accountId=${account.accountId}`, { apikey: account.apiKey });
    expect(list.status).toBe(200);
    expectDataHeaders(list.headers, "GET /v3/messages");

    const refused = await get(`/v3/messages?accountId=${account.accountId}`);
    expect(refused.status).toBe(401);
    expectDataHeaders(refused.headers, "401 on /v3");

    const unknown = await get("/v3/nothing-here");
    expect(JSON.parse(unknown.text)).toMatchObject({ status: "UnknownResource", statusCode: 400 });
    expectDataHeaders(unknown.headers, "an unknown path under /v3");
  });

  it("/metrics", async () => {
    const res = await get("/metrics");
    expect(res.status).toBe(200);
    expect(res.text).toContain("# TYPE");
    expectDataHeaders(res.headers, "/metrics");
  });

  it("socket.io's own answers", async () => {
    const res = await get("/socket.io/?EIO=4&transport=polling");
    expect(res.status).toBe(200);
    expectDataHeaders(res.headers, "socket.io polling");
  });

  it("requests refused before routing, and what is not HTTP at all (answered on the bare socket)", async () => {
    const badEscape = await rawRequest(server, { method: "GET", path: "/v3/%zz", headers: { host: "x" } });
    expect(badEscape.status).toBe(400);
    expectDataHeaders(badEscape.headers, "a path that does not decode");

    const malformed = await rawExchange(server, "GET / HTTP/1.1\r\nHost: x\r\nNot a header line\r\n\r\n");
    expect(malformed.status, malformed.raw).toBe(400);
    expect(malformed.json).toMatchObject({ status: "InvalidRequest" });
    expectDataHeaders(malformed.headers, "malformed HTTP");

    const connect = await rawExchange(server, "CONNECT 127.0.0.1:22 HTTP/1.1\r\nHost: 127.0.0.1:22\r\n\r\n");
    expect(connect.status, connect.raw).toBe(400);
    expectDataHeaders(connect.headers, "CONNECT");
  });
});

describe("Strict-Transport-Security", () => {
  let tls: RunningServer;

  beforeAll(async () => {
    // As behind a TLS-terminating proxy: PUBLIC_URL is https, the server itself speaks plain HTTP.
    tls = await startServer({ env: { PUBLIC_URL: "https://parley.example.com" } });
  });

  afterAll(async () => {
    await tls?.stop();
  });

  it("is sent on every kind of answer when PUBLIC_URL is https", async () => {
    const expected = "max-age=31536000; includeSubDomains";
    for (const path of ["/login", "/api/health", "/v3/messages", "/no-such-page"]) {
      const res = await fetch(tls.baseUrl + path, { redirect: "manual" });
      expect(res.headers.get("strict-transport-security"), path).toBe(expected);
    }
    const raw = await rawExchange(tls, "GET / HTTP/1.1\r\nHost: x\r\nNot a header line\r\n\r\n");
    expect(raw.headers["strict-transport-security"]).toBe(expected);
  });
});
