import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startServer, type RunningServer } from "../helpers/server";
import { call, createTestAccount, releaseFactories, type TestAccount } from "../helpers/factories";
import { portalCookie } from "../helpers/portal-session";
import { createUser } from "../../lib/accounts/manage-accounts";

// The admin API behind the portal's /keys, /users and /settings pages: keys created once and revoked per account,
// users added with a generated password, roles and disabling that count from the next request, the audit trail.

let server: RunningServer;
let acme: TestAccount;
let other: TestAccount;
let admin: string; // the Cookie header of acme's admin session
let agent: string;
let otherAdmin: string;
const password = "correct horse battery";
const email = (who: string, account: TestAccount) => `${who}-${account.accountId.slice(0, 8)}@example.com`;
const base = (account: TestAccount) => `/api/admin/accounts/${account.accountId}`;
const as = (cookie: string) => ({ headers: { cookie } });

beforeAll(async () => {
  // A key cache of 1 s keeps the revoke tests short; the e2e test runs with the default of 5 s.
  server = await startServer({ env: { API_KEY_CACHE_SECONDS: "1" } });
  acme = await createTestAccount(server, { name: "Acme", numbers: 1 });
  other = await createTestAccount(server, { name: "Other", numbers: 1 });
  for (const [who, account, role] of [
    ["admin", acme, "admin"],
    ["agent", acme, "agent"],
    ["admin", other, "admin"],
  ] as const) {
    await createUser({ accountId: account.accountId, email: email(who, account), password, role });
  }
  [admin, agent, otherAdmin] = await Promise.all([
    portalCookie(server, email("admin", acme), password),
    portalCookie(server, email("agent", acme), password),
    portalCookie(server, email("admin", other), password),
  ]);
});

afterAll(async () => {
  await releaseFactories();
  await server?.stop();
});

function expectInvalid(res: Awaited<ReturnType<typeof call>>, field: string) {
  expect(res.status, res.text).toBe(400);
  expect(res.json.status).toBe("InvalidRequest");
  expect(res.json.data.field).toBe(field);
  expect(res.json.data.error_message).toBeTruthy();
}

async function audit(query: string) {
  const res = await call(server, "GET", `${base(acme)}/audit?${query}`, as(admin));
  expect(res.status, res.text).toBe(200);
  return res.json.data as {
    total: number;
    events: { action: string; actor: string; target: string; detail: string; ip: string }[];
  };
}

describe("who may call the routes", () => {
  const routes = (account: TestAccount): [string, string, unknown?][] => [
    ["GET", `${base(account)}/keys`],
    ["POST", `${base(account)}/keys`, { name: "nope" }],
    ["DELETE", `${base(account)}/keys/00000000-0000-4000-8000-000000000000`],
    ["GET", `${base(account)}/users`],
    ["POST", `${base(account)}/users`, { email: "nope@example.com", role: "agent" }],
    ["PATCH", `${base(account)}/users/00000000-0000-4000-8000-000000000000`, { role: "admin" }],
    ["GET", `${base(account)}/audit`],
    ["PUT", base(account), { name: "Taken over" }],
  ];

  it("refuses an agent's session with 403 on every route", async () => {
    for (const [method, path, body] of routes(acme)) {
      const res = await call(server, method, path, { ...as(agent), body });
      expect(res.status, `${method} ${path}: ${res.text}`).toBe(403);
      expect(res.json.status).toBe("Forbidden");
    }
  });

  it("refuses an admin of another account, and no credentials, on every route", async () => {
    for (const [method, path, body] of routes(other)) {
      const res = await call(server, method, path, { ...as(admin), body });
      expect(res.status, `${method} ${path}: ${res.text}`).toBe(403);
      const anonymous = await call(server, method, path, { body });
      expect(anonymous.status, `${method} ${path} without credentials`).toBe(401);
    }
    // Nothing of the other account changed.
    const users = await call(server, "GET", `${base(other)}/users`, as(otherAdmin));
    expect(users.json.data.users.map((u: { email: string }) => u.email)).toEqual([email("admin", other)]);
    const settings = await call(server, "GET", base(other), as(otherAdmin));
    expect(settings.json.data.account.name).toBe("Other");
  });
});

describe("API keys", () => {
  let created: { key: { id: string; hint: string }; secret: string };

  it("creates a key whose secret is answered once and works at once", async () => {
    const res = await call(server, "POST", `${base(acme)}/keys`, {
      ...as(admin),
      body: { name: "  Billing  ", expiresAt: "2099-12-31" },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.json.status).toBe("UpdateSuccessful");
    created = res.json.data;
    expect(created.secret).toMatch(/^pk_[0-9A-Za-z]{32}$/);
    expect(created.key).toMatchObject({
      name: "Billing",
      hint: `${created.secret.slice(0, 7)}…${created.secret.slice(-4)}`,
      expiresAt: "2099-12-31T00:00:00.000Z",
      lastUsedAt: null,
      revokedAt: null,
      state: "active",
    });
    const use = await call(server, "GET", base(acme), { headers: { apikey: created.secret } });
    expect(use.status, use.text).toBe(200);
  });

  it("lists keys newest first and paged, by hint, never with the secret", async () => {
    const res = await call(server, "GET", `${base(acme)}/keys?start=0&count=1`, as(admin));
    expect(res.status, res.text).toBe(200);
    expect(res.text).not.toContain(created.secret);
    expect(res.text).not.toMatch(/"hash"/);
    expect(res.json.data).toMatchObject({ total: 2, start: 0, count: 1 });
    expect(res.json.data.keys).toHaveLength(1);
    expect(res.json.data.keys[0]).toMatchObject({ id: created.key.id, hint: created.key.hint, state: "active" });
    const second = await call(server, "GET", `${base(acme)}/keys?start=1&count=1`, as(admin));
    expect(second.json.data.keys[0]).toMatchObject({ name: "test", expiresAt: null });
  });

  it("names the field of bad input", async () => {
    const post = (body: unknown) => call(server, "POST", `${base(acme)}/keys`, { ...as(admin), body });
    expectInvalid(await post({ name: "   " }), "name");
    expectInvalid(await post({ name: "x", expiresAt: "2001-01-01" }), "expiresAt");
    expectInvalid(await post({ name: "x", expiresAt: "2099-02-30" }), "expiresAt");
    const unknown = await post({ name: "x", scopes: ["all"] });
    expect(unknown.status).toBe(400);
    expect(unknown.json.data.error_message).toMatch(/scopes/);
    expectInvalid(await call(server, "GET", `${base(acme)}/keys?count=0`, as(admin)), "count");
    expectInvalid(await call(server, "GET", `${base(acme)}/keys?start=-1`, as(admin)), "start");
  });

  it("another account's key id is 404 and that key keeps working", async () => {
    const theirs = await call(server, "GET", `${base(other)}/keys`, { headers: { apikey: other.apiKey } });
    const theirKeyId = theirs.json.data.keys[0].id as string;
    const res = await call(server, "DELETE", `${base(acme)}/keys/${theirKeyId}`, as(admin));
    expect(res.status, res.text).toBe(404);
    expect(res.json.status).toBe("NotFound");
    // Through their own account's path it is 403, whatever the id.
    const across = await call(server, "DELETE", `${base(other)}/keys/${theirKeyId}`, as(admin));
    expect(across.status).toBe(403);
    await new Promise((resolve) => setTimeout(resolve, 1100)); // past the 1 s key cache
    const after = await call(server, "GET", `${base(other)}/keys`, { headers: { apikey: other.apiKey } });
    expect(after.status, after.text).toBe(200);
    expect(after.json.data.keys[0]).toMatchObject({ id: theirKeyId, state: "active", revokedAt: null });
  });

  it("revokes a key: the API answers 401 for it within the cache time, revoking again changes nothing", async () => {
    const res = await call(server, "DELETE", `${base(acme)}/keys/${created.key.id}`, as(admin));
    expect(res.status, res.text).toBe(200);
    expect(res.json.data.key).toMatchObject({ id: created.key.id, state: "revoked", revokedAt: expect.any(String) });
    await vi.waitFor(
      async () => {
        const use = await call(server, "GET", base(acme), { headers: { apikey: created.secret } });
        expect(use.status).toBe(401);
      },
      { timeout: 8_000, interval: 200 },
    );
    const again = await call(server, "DELETE", `${base(acme)}/keys/${created.key.id}`, as(admin));
    expect(again.status).toBe(200);
    expect(again.json.data.key.revokedAt).toBe(res.json.data.key.revokedAt);
    const missing = await call(server, "DELETE", `${base(acme)}/keys/not-a-key`, as(admin));
    expect(missing.status).toBe(404);
  });

  it("records key.created and key.revoked (once) with the actor and address", async () => {
    const { events } = await audit("action=key.");
    expect(events.map((e) => e.action)).toEqual(["key.revoked", "key.created"]);
    for (const event of events) {
      expect(event).toMatchObject({ actor: `user:${email("admin", acme)}`, target: created.key.hint, ip: "127.0.0.1" });
    }
  });
});

describe("users and roles", () => {
  let ana: { id: string; email: string };
  let anaPassword: string;

  it("adds a user with a generated initial password that signs in", async () => {
    const res = await call(server, "POST", `${base(acme)}/users`, {
      ...as(admin),
      body: { email: "  Ana@Acme.Example ", name: "Ana Lima", role: "agent" },
    });
    expect(res.status, res.text).toBe(200);
    ana = res.json.data.user;
    anaPassword = res.json.data.password;
    expect(ana).toMatchObject({ email: "ana@acme.example", name: "Ana Lima", role: "agent", state: "active" });
    expect(anaPassword.length).toBeGreaterThanOrEqual(20);
    await portalCookie(server, ana.email, anaPassword);

    const list = await call(server, "GET", `${base(acme)}/users`, as(admin));
    expect(list.text).not.toContain(anaPassword);
    expect(list.text).not.toMatch(/passwordHash/);
    const listed = list.json.data.users.find((u: { id: string }) => u.id === ana.id);
    expect(listed).toMatchObject({ role: "agent", state: "active", lastSignInAt: expect.any(String) });
    expect(list.json.data.total).toBe(3);
  });

  it("names the field of bad input and refuses an email in use", async () => {
    const post = (body: unknown) => call(server, "POST", `${base(acme)}/users`, { ...as(admin), body });
    expectInvalid(await post({ email: "not-an-email", role: "agent" }), "email");
    expectInvalid(await post({ email: "bo@acme.example", role: "owner" }), "role");
    expectInvalid(await post({ email: email("admin", other), role: "agent" }), "email");
    const patch = (body: unknown) => call(server, "PATCH", `${base(acme)}/users/${ana.id}`, { ...as(admin), body });
    expectInvalid(await patch({ role: "root" }), "role");
    expectInvalid(await patch({ disabled: "yes" }), "disabled");
    expect((await patch({})).status).toBe(400);
    expectInvalid(await call(server, "GET", `${base(acme)}/audit?action=DROP%20TABLE`, as(admin)), "action");
  });

  it("a role change counts from the user's next request", async () => {
    const session = await portalCookie(server, ana.email, anaPassword);
    expect((await call(server, "GET", base(acme), as(session))).status).toBe(403);
    const promote = await call(server, "PATCH", `${base(acme)}/users/${ana.id}`, {
      ...as(admin),
      body: { role: "admin" },
    });
    expect(promote.status, promote.text).toBe(200);
    expect(promote.json.data.user.role).toBe("admin");
    expect((await call(server, "GET", base(acme), as(session))).status).toBe(200);
    const demote = await call(server, "PATCH", `${base(acme)}/users/${ana.id}`, {
      ...as(admin),
      body: { role: "agent" },
    });
    expect(demote.status).toBe(200);
    expect((await call(server, "GET", base(acme), as(session))).status).toBe(403);
  });

  it("a disabled user's open session gets 401 at its next request and cannot sign in; enabled, it can again", async () => {
    const session = await portalCookie(server, ana.email, anaPassword);
    const route = `${base(acme)}/users`; // any route: the session is checked before the role
    expect((await call(server, "GET", route, as(session))).status).toBe(403);
    const off = await call(server, "PATCH", `${base(acme)}/users/${ana.id}`, {
      ...as(admin),
      body: { disabled: true },
    });
    expect(off.status, off.text).toBe(200);
    expect(off.json.data.user).toMatchObject({ state: "disabled", disabledAt: expect.any(String) });
    expect((await call(server, "GET", route, as(session))).status).toBe(401);
    await expect(portalCookie(server, ana.email, anaPassword)).rejects.toThrow(/failed/);

    const on = await call(server, "PATCH", `${base(acme)}/users/${ana.id}`, {
      ...as(admin),
      body: { disabled: false },
    });
    expect(on.json.data.user).toMatchObject({ state: "active", disabledAt: null });
    await portalCookie(server, ana.email, anaPassword);
  });

  it("an admin cannot disable themself nor leave the account without an active admin", async () => {
    const me = (await call(server, "GET", `${base(acme)}/users`, as(admin))).json.data.users.find(
      (u: { email: string }) => u.email === email("admin", acme),
    );
    const patchMe = (body: unknown, cookie = admin) =>
      call(server, "PATCH", `${base(acme)}/users/${me.id}`, { ...as(cookie), body });
    const self = await patchMe({ disabled: true });
    expectInvalid(self, "disabled");
    expect(self.json.data.error_message).toMatch(/cannot disable yourself/);
    const last = await patchMe({ role: "agent" });
    expectInvalid(last, "role");
    expect(last.json.data.error_message).toMatch(/last active admin/);
    // Nor through the API key (no "self" there): the last admin stays.
    const byKey = await call(server, "PATCH", `${base(acme)}/users/${me.id}`, {
      headers: { apikey: acme.apiKey },
      body: { disabled: true },
    });
    expectInvalid(byKey, "disabled");
    expect((await call(server, "GET", base(acme), as(admin))).status).toBe(200);

    // With a second active admin, the first may step down.
    await call(server, "PATCH", `${base(acme)}/users/${ana.id}`, { ...as(admin), body: { role: "admin" } });
    const anaSession = await portalCookie(server, ana.email, anaPassword);
    const stepDown = await patchMe({ role: "agent" });
    expect(stepDown.status, stepDown.text).toBe(200);
    expect((await call(server, "GET", base(acme), as(admin))).status).toBe(403);
    const back = await patchMe({ role: "admin" }, anaSession);
    expect(back.status, back.text).toBe(200);
    expect((await call(server, "GET", base(acme), as(admin))).status).toBe(200);
  });

  it("another account's user id is 404 through this account's path", async () => {
    const theirs = (await call(server, "GET", `${base(other)}/users`, as(otherAdmin))).json.data.users[0];
    const res = await call(server, "PATCH", `${base(acme)}/users/${theirs.id}`, {
      ...as(admin),
      body: { disabled: true },
    });
    expect(res.status, res.text).toBe(404);
    expect((await call(server, "GET", base(other), as(otherAdmin))).status).toBe(200);
  });

  it("records user.created and user.updated with what changed", async () => {
    const { events, total } = await audit("action=user.&count=50");
    expect(events.at(-1)).toMatchObject({ action: "user.created", target: "ana@acme.example", detail: "role agent" });
    const details = events.filter((e) => e.action === "user.updated").map((e) => e.detail);
    expect(details).toEqual(
      expect.arrayContaining(["role agent → admin", "role admin → agent", "disabled", "enabled"]),
    );
    expect(events.every((e) => e.ip === "127.0.0.1")).toBe(true);
    expect(events.some((e) => e.actor.startsWith("apiKey:"))).toBe(false); // refused changes record nothing
    const paged = await audit("action=user.&start=1&count=2");
    expect(paged.total).toBe(total);
    expect(paged.events).toEqual(events.slice(1, 3));
  });

  it("the audit trail holds the sign-ins, succeeded and failed", async () => {
    await expect(portalCookie(server, ana.email, "wrong password")).rejects.toThrow();
    const { events } = await audit("action=signin.");
    expect(events.map((e) => e.action)).toContain("signin.succeeded");
    expect(events[0]).toMatchObject({ action: "signin.failed", target: ana.email, detail: "wrong password" });
  });
});

describe("settings", () => {
  it("names the field of bad input and saves nothing", async () => {
    const put = (body: unknown) => call(server, "PUT", base(acme), { ...as(admin), body });
    expectInvalid(await put({ timeZone: "Mars/Olympus_Mons" }), "timeZone");
    expectInvalid(await put({ timeZone: "EST" }), "timeZone");
    expectInvalid(await put({ rateLimitPerSecond: 0 }), "rateLimitPerSecond");
    expectInvalid(await put({ bulkShare: 1.5 }), "bulkShare");
    expectInvalid(await put({ bulkShare: 0 }), "bulkShare");
    expectInvalid(await put({ bulkWindowEnd: "25:00" }), "bulkWindowEnd");
    expectInvalid(await put({ name: "" }), "name");
    const unknown = await put({ name: "Acme", nextSendAt: null });
    expect(unknown.status).toBe(400);
    expect(unknown.json.data.error_message).toMatch(/unknown field\(s\): nextSendAt/);
    const res = await call(server, "GET", base(acme), as(admin));
    expect(res.json.data.account).toMatchObject({ name: "Acme", timeZone: "UTC", rateLimitPerSecond: 10 });
  });

  it("saves the fields given, keeps the rest, and records what changed", async () => {
    const res = await call(server, "PUT", base(acme), {
      ...as(admin),
      body: { name: "Acme Corp", timeZone: "europe/paris", rateLimitPerSecond: 2.5, bulkShare: 0.25 },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.json.status).toBe("UpdateSuccessful");
    expect(res.json.data.account).toMatchObject({
      name: "Acme Corp",
      timeZone: "Europe/Paris",
      rateLimitPerSecond: 2.5,
      bulkShare: 0.25,
      bulkWindowStart: "08:00",
      bulkWindowEnd: "21:00",
    });
    const windowOnly = await call(server, "PUT", base(acme), {
      ...as(admin),
      body: { bulkWindowStart: "22:00", bulkWindowEnd: "06:00" },
    });
    expect(windowOnly.json.data.account).toMatchObject({ name: "Acme Corp", bulkWindowStart: "22:00" });
    const read = await call(server, "GET", base(acme), { headers: { apikey: acme.apiKey } });
    expect(read.json.data.account).toMatchObject({ timeZone: "Europe/Paris", bulkWindowEnd: "06:00" });

    const { events } = await audit("action=settings.");
    expect(events).toHaveLength(2);
    expect(events[1]!.detail).toBe(
      'name: "Acme" → "Acme Corp"; timeZone: "UTC" → "Europe/Paris"; rateLimitPerSecond: 10 → 2.5; bulkShare: 0.5 → 0.25',
    );
    expect(events[0]).toMatchObject({ actor: `user:${email("admin", acme)}`, ip: "127.0.0.1" });
  });
});
