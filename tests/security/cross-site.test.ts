import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { io } from "socket.io-client";
import { startServer, type RunningServer } from "../helpers/server";
import { call, createTestAccount, releaseFactories, type TestAccount } from "../helpers/factories";
import { portalCookie } from "../helpers/portal-session";
import { adminRoutes } from "../helpers/admin-routes";
import { createUser } from "../../lib/accounts/manage-accounts";
import { db } from "../../lib/db/client";

// Cross-site request forgery, over HTTP: what a browser sends when a page on another origin makes it post to the
// portal with the admin's cookie. Every state-changing admin route is tried, found by walking the source tree.

const password = "correct horse battery";
const STATE_CHANGING = ["POST", "PUT", "PATCH", "DELETE"];

let server: RunningServer;
let account: TestAccount;
let cookie: string;
let adminEmail: string;
/** The same host on another port: same-site, so SameSite=Lax cookies go along. */
let sameSiteOrigin: string;

beforeAll(async () => {
  server = await startServer();
  account = await createTestAccount(server, { name: "Forgery Ltd" });
  adminEmail = `admin-${account.accountId}@example.com`;
  await createUser({ accountId: account.accountId, email: adminEmail, password, role: "admin", name: "Ada Admin" });
  cookie = await portalCookie(server, adminEmail, password);
  sameSiteOrigin = `http://127.0.0.1:${server.port === 65535 ? 65534 : server.port + 1}`;
});

afterAll(async () => {
  await releaseFactories();
  await server?.stop();
});

/** What a hostile page can make a browser send: its origin headers, the cookie, and a body a form can carry. */
function forged(headers: Record<string, string>, body = "name=pwned") {
  return {
    headers: { cookie, "content-type": "application/x-www-form-urlencoded", ...headers },
    rawBody: body,
  };
}

async function send(method: string, path: string, init: { headers: Record<string, string>; rawBody?: string }) {
  const res = await fetch(server.baseUrl + path, {
    method,
    headers: init.headers,
    body: method === "GET" ? undefined : init.rawBody,
    redirect: "manual",
  });
  const text = await res.text();
  let json: { status?: string; statusCode?: number; data?: { error_message?: string } } = {};
  try {
    json = JSON.parse(text);
  } catch {
    // not JSON: the assertions say so
  }
  return { status: res.status, json, text };
}

/** The account's state a forged request could change, to compare before and after. */
async function snapshot() {
  const [keys, users, numbers, webhook, account_, messages] = await Promise.all([
    db().apiKey.findMany({ where: { accountId: account.accountId }, select: { id: true, revokedAt: true } }),
    db().user.findMany({ where: { accountId: account.accountId }, select: { id: true, role: true, disabledAt: true } }),
    db().phoneNumber.findMany({ where: { accountId: account.accountId }, select: { number: true, label: true } }),
    db().webhookEndpoint.findMany({ where: { accountId: account.accountId } }),
    db().account.findUnique({ where: { id: account.accountId }, select: { name: true, rateLimitPerSecond: true } }),
    db().message.count({ where: { accountId: account.accountId } }),
  ]);
  return { keys, users, numbers, webhook, account: account_, messages };
}

const hostile: [string, () => Record<string, string>][] = [
  ["another site", () => ({ origin: "https://evil.example" })],
  ["the same host on another port", () => ({ origin: sameSiteOrigin })],
  ["an opaque origin (Origin: null)", () => ({ origin: "null" })],
  ["a same-site page seen by Sec-Fetch-Site", () => ({ "sec-fetch-site": "same-site" })],
  ["a cross-site page seen by Sec-Fetch-Site", () => ({ "sec-fetch-site": "cross-site" })],
  ["another origin seen by Referer", () => ({ referer: `${sameSiteOrigin}/attack.html` })],
];

describe("a state-changing portal request from another origin", () => {
  it.each(hostile)("is refused from %s on every admin route, and changes nothing", async (_name, headers) => {
    const before = await snapshot();
    const routes = adminRoutes().flatMap((route) =>
      route.methods.filter((m) => STATE_CHANGING.includes(m)).map((method) => ({ method, route })),
    );
    expect(routes.length).toBeGreaterThan(15);
    for (const { method, route } of routes) {
      const res = await send(method, route.path(account.accountId), forged(headers()));
      expect(res.status, `${method} ${route.file}: ${res.text}`).toBe(403);
      expect(res.json).toMatchObject({ status: "CrossSiteRequest", statusMessage: "Cross-site request refused" });
    }
    expect(await snapshot()).toEqual(before);
  });

  it("is refused with a JSON body too, and the refusal is in the account's audit trail", async () => {
    const res = await send("POST", `/api/admin/accounts/${account.accountId}/keys`, {
      headers: { cookie, "content-type": "application/json", origin: sameSiteOrigin },
      rawBody: JSON.stringify({ name: "forged" }),
    });
    expect(res.status).toBe(403);
    expect(res.json.data?.error_message).toBe(`the request comes from another origin (${sameSiteOrigin})`);
    const audit = await call(server, "GET", `/api/admin/accounts/${account.accountId}/audit?action=request`, {
      headers: { cookie },
    });
    expect(audit.json.data.events[0]).toMatchObject({
      actor: `user:${adminEmail}`,
      action: "request.cross_site_refused",
      target: `POST /api/admin/accounts/${account.accountId}/keys`,
      detail: `the request comes from another origin (${sameSiteOrigin})`,
    });
  });

  it("sign-out from another origin is refused: the session goes on", async () => {
    const res = await send("POST", "/api/auth/signout", forged({ origin: "https://evil.example" }, "json=true"));
    expect(res.status).toBe(403);
    expect(res.json.status).toBe("CrossSiteRequest");
    const still = await call(server, "GET", `/api/admin/accounts/${account.accountId}/keys`, { headers: { cookie } });
    expect(still.status).toBe(200);
  });
});

describe("the portal's own requests", () => {
  it("from its own origin with a JSON body go through", async () => {
    const res = await send("POST", `/api/admin/accounts/${account.accountId}/keys`, {
      headers: { cookie, "content-type": "application/json", origin: server.baseUrl, "sec-fetch-site": "same-origin" },
      rawBody: JSON.stringify({ name: "from the portal" }),
    });
    expect(res.status, res.text).toBe(200);
  });

  it("with a body not declared JSON are refused with 415, even from the portal's own origin", async () => {
    const before = await snapshot();
    for (const type of ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"]) {
      const res = await send("POST", `/api/admin/accounts/${account.accountId}/keys`, {
        headers: { cookie, "content-type": type, origin: server.baseUrl },
        rawBody: JSON.stringify({ name: "text/plain smuggled JSON" }),
      });
      expect(res.status, res.text).toBe(415);
      expect(res.json).toMatchObject({
        status: "UnsupportedMediaType",
        statusMessage: "The request body must be JSON (Content-Type: application/json)",
      });
      expect(res.json.data?.error_message).toBe(`the request body was sent as ${type.split(";")[0]}`);
    }
    expect(await snapshot()).toEqual(before);
  });
});

describe("API-key requests", () => {
  it("are judged by their key alone, whatever origin they claim (the admin API and /v3)", async () => {
    const admin = await send("POST", `/api/admin/accounts/${account.accountId}/keys`, {
      headers: { apikey: account.apiKey, "content-type": "application/json", origin: "https://evil.example" },
      rawBody: JSON.stringify({ name: "automation" }),
    });
    expect(admin.status, admin.text).toBe(200);
    const v3 = await send("POST", "/v3/messages", {
      headers: { apikey: account.apiKey, "content-type": "application/json", origin: "https://evil.example" },
      rawBody: JSON.stringify({
        accountId: account.accountId,
        from: account.numbers[0],
        to: "14155550123",
        body: "Hi",
      }),
    });
    expect(v3.status, v3.text).toBe(200);
  });
});

describe("the live view's socket", () => {
  function connect(headers: Record<string, string>): Promise<string> {
    const socket = io(server.baseUrl, {
      path: "/socket.io",
      transports: ["websocket"],
      reconnection: false,
      extraHeaders: headers,
    });
    return new Promise<string>((resolve) => {
      socket.on("connect", () => resolve("connected"));
      socket.on("connect_error", (error) => resolve(`refused: ${error.message}`));
    }).finally(() => socket.close());
  }

  it("refuses a handshake from another origin carrying the cookie, and accepts the portal's own", async () => {
    expect(await connect({ cookie, origin: "https://evil.example" })).toMatch(/^refused/);
    expect(await connect({ cookie, origin: sameSiteOrigin })).toMatch(/^refused/);
    expect(await connect({ cookie, origin: server.baseUrl })).toBe("connected");
  });

  it("refuses a polling handshake from another origin too", async () => {
    const res = await fetch(`${server.baseUrl}/socket.io/?EIO=4&transport=polling`, {
      headers: { cookie, origin: sameSiteOrigin },
    });
    expect(res.status).toBe(403);
  });
});
