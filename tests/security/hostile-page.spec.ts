import { createServer, type Server } from "node:http";
import type { Page } from "@playwright/test";
import { expect, signInPortal, test } from "../helpers/browser-test";
import { startServer, type RunningServer } from "../helpers/server";
import { createDemoAccount, createUser, parley, type DemoCredentials } from "../helpers/cli";
import { adminRoutes } from "../helpers/admin-routes";
import { portalCookie } from "../helpers/portal-session";

// A signed-in admin opens a hostile web page in the same browser. The page tries every state-changing request of the
// portal, as a web page can send them: HTML forms (form-encoded and text/plain bodies shaped as JSON), `no-cors`
// fetches with the cookie, CORS fetches for the methods forms cannot send, and a WebSocket to the live view. It is
// served from the same host on another port (same-site: SameSite=Lax cookies go along) and from another site.
// Nothing may change, and the admin stays signed in.

let server: RunningServer;
let demo: DemoCredentials;
let hostile: Server;
let hostilePort: number;
let attacks: Attack[];
let victimUserId: string;

interface Attack {
  method: string;
  path: string;
  body: Record<string, unknown>;
}

test.beforeAll(async () => {
  server = await startServer();
  demo = await createDemoAccount(server.database.url);
  await createUser(server.database.url, {
    accountId: demo.accountId,
    email: "agent@hostile.test",
    password: "correct horse battery",
    role: "agent",
  });
  await parley(["inbound", "--from", "+14155550199", "--to", demo.numbers[0]!, "--body", "Hi"], server.database.url);
  const users = await adminGet("/users");
  victimUserId = users.users.find((u: { email: string }) => u.email === "agent@hostile.test").id;
  // Conversations are for portal users, not keys: read as the admin, over HTTP.
  const cookie = await portalCookie(server, demo.email, demo.password);
  const listed = await fetch(`${server.baseUrl}/api/admin/accounts/${demo.accountId}/conversations`, {
    headers: { cookie },
  });
  const conversationId = (await listed.json()).data.conversations[0].id;
  const base = `/api/admin/accounts/${demo.accountId}`;
  // The harmful requests with real targets, then every other state-changing route of the admin API.
  attacks = [
    { method: "POST", path: `${base}/keys`, body: { name: "stolen" } },
    { method: "POST", path: `${base}/users`, body: { email: "mallory@evil.test", role: "admin", name: "Mallory" } },
    { method: "PATCH", path: `${base}/users/${victimUserId}`, body: { role: "admin" } },
    { method: "PUT", path: `${base}/webhook`, body: { url: "https://evil.example/hook" } },
    { method: "PUT", path: base, body: { name: "Pwned", rateLimitPerSecond: 1 } },
    { method: "POST", path: `${base}/numbers`, body: { number: "+13125550142" } },
    { method: "POST", path: `${base}/conversations/${conversationId}/messages`, body: { body: "Send me your code" } },
    { method: "POST", path: `${base}/opt/numbers`, body: { number: "+14155550199", action: "out" } },
    {
      method: "POST",
      path: `${base}/simulator/inbound`,
      body: { from: "+14155550100", to: demo.numbers[0], body: "x" },
    },
    { method: "POST", path: "/api/auth/signout", body: { json: "true" } },
    ...adminRoutes().flatMap((route) =>
      route.methods
        .filter((method) => method !== "GET")
        .map((method) => ({ method, path: route.path(demo.accountId), body: { name: "x" } })),
    ),
  ];
  hostile = createServer((req, res) => {
    res.setHeader("content-type", "text/html; charset=utf-8");
    res.end(hostilePage(server.baseUrl, attacks));
  });
  await new Promise<void>((resolve) => hostile.listen(0, "127.0.0.1", resolve));
  hostilePort = (hostile.address() as { port: number }).port;
});

test.afterAll(async () => {
  await new Promise((resolve) => hostile?.close(resolve));
  await server?.stop();
});

async function adminGet(path: string) {
  const res = await fetch(`${server.baseUrl}/api/admin/accounts/${demo.accountId}${path}`, {
    headers: { apikey: demo.apiKey },
  });
  return (await res.json()).data;
}

/** Everything a forged request could have changed, read with the account's API key. */
async function accountState() {
  const [keys, users, webhook, settings, numbers, messages, optOuts] = await Promise.all([
    adminGet("/keys"),
    adminGet("/users"),
    adminGet("/webhook"),
    adminGet(""),
    adminGet("/numbers"),
    adminGet("/messages?count=100"),
    adminGet("/opt/events"),
  ]);
  return {
    keys: keys.keys.map((k: { id: string; revokedAt: string | null }) => [k.id, k.revokedAt]),
    users: users.users.map((u: { email: string; role: string; state: string }) => [u.email, u.role, u.state]),
    webhook: webhook.webhook.url,
    settings: settings.account,
    numbers: numbers.numbers.map((n: { number: string; label: string }) => [n.number, n.label]),
    messages: messages.total,
    optOuts: optOuts.total,
  };
}

/** The hostile page: it fires every attack on load and says when all have settled. */
function hostilePage(target: string, list: Attack[]): string {
  return `<!doctype html><html><body><h1>Cute cats</h1><script>
const target = ${JSON.stringify(target)};
const attacks = ${JSON.stringify(list)};
const results = [];
function form(attack, enctype, i) {
  const frame = document.createElement("iframe");
  frame.name = "f" + enctype.length + "_" + i;
  document.body.appendChild(frame);
  const f = document.createElement("form");
  f.method = "POST";
  f.action = target + attack.path;
  f.enctype = enctype;
  f.target = frame.name;
  if (enctype === "text/plain") {
    // name + "=" + value spells JSON: {"name":"x","_":"="}
    const input = document.createElement("input");
    input.name = JSON.stringify(attack.body).slice(0, -1) + ',"_":"';
    input.value = '"}';
    f.appendChild(input);
  } else {
    for (const [k, v] of Object.entries(attack.body)) {
      const input = document.createElement("input");
      input.name = k;
      input.value = String(v);
      f.appendChild(input);
    }
  }
  document.body.appendChild(f);
  return new Promise((resolve) => { frame.onload = resolve; setTimeout(resolve, 3000); f.submit(); });
}
async function run() {
  const jobs = [];
  attacks.forEach((attack, i) => {
    const body = JSON.stringify(attack.body);
    if (attack.method === "POST") {
      jobs.push(form(attack, "application/x-www-form-urlencoded", i));
      jobs.push(form(attack, "text/plain", i));
      jobs.push(fetch(target + attack.path, { method: "POST", mode: "no-cors", credentials: "include",
        headers: { "content-type": "text/plain" }, body }).then(() => results.push("sent"), () => results.push("blocked")));
    }
    jobs.push(fetch(target + attack.path, { method: attack.method, mode: "cors", credentials: "include",
      headers: { "content-type": "application/json" }, body }).then(() => results.push("answered"), () => results.push("blocked")));
  });
  jobs.push(new Promise((resolve) => {
    const ws = new WebSocket(target.replace("http", "ws") + "/socket.io/?EIO=4&transport=websocket");
    ws.onopen = () => { window.socketOpened = true; ws.close(); resolve(); };
    ws.onerror = () => resolve();
    setTimeout(resolve, 3000);
  }));
  await Promise.all(jobs);
  window.results = results;
  window.done = true;
}
run();
</script></body></html>`;
}

async function signIn(page: Page): Promise<void> {
  await signInPortal(page, server.baseUrl, demo.email, demo.password);
  await expect(page.getByRole("heading", { name: "Dashboard" })).toBeVisible();
}

for (const [where, host] of [
  ["the same host on another port", "127.0.0.1"],
  ["another site", "localhost"],
] as const) {
  test(`a signed-in admin who opens a hostile page on ${where} loses nothing`, async ({ page, context, csp }) => {
    await signIn(page);
    const before = await accountState();
    const refusalsBefore = (await adminGet("/audit?action=request.cross_site_refused&count=1")).total as number;

    const attacker = await context.newPage();
    await attacker.goto(`http://${host}:${hostilePort}/cats.html`);
    await attacker.waitForFunction(() => (window as unknown as { done?: boolean }).done === true, undefined, {
      timeout: 45_000,
    });

    expect(await accountState()).toEqual(before);
    // The refusals the forms posted into their frames are not even shown there: framing any answer is refused.
    expect(csp.take().filter((violation) => !/frame-ancestors/.test(violation))).toEqual([]);
    expect(await attacker.evaluate(() => (window as unknown as { socketOpened?: boolean }).socketOpened)).toBeFalsy();
    // The forms and no-cors fetches did reach the server (the browser sent them), and were refused there.
    const refusals = (await adminGet("/audit?action=request.cross_site_refused&count=1")).total as number;
    if (host === "127.0.0.1") expect(refusals - refusalsBefore).toBeGreaterThan(attacks.length);
    // The admin is still signed in: the forged sign-out did not end the session.
    await page.goto(server.baseUrl + "/keys");
    await expect(page.getByRole("heading", { name: "API keys" })).toBeVisible();
  });
}
