import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encode } from "next-auth/jwt";
import { io, type Socket } from "socket.io-client";
import { startServer, type RunningServer } from "../helpers/server";
import { call, createTestAccount, releaseFactories, type TestAccount } from "../helpers/factories";
import { portalCookie, portalSignOut } from "../helpers/portal-session";
import { createUser } from "../../lib/accounts/manage-accounts";
import { db } from "../../lib/db/client";
import { RetentionSweeper } from "../../lib/retention/retention-sweeper";

// Portal sessions end on the server: a copy of the session cookie taken before "Sign out" (or before an admin's
// revoke, a password change, disabling the user) is refused by the admin API, the pages and socket.io alike, and
// an open live connection of that session is closed at once.

const password = "correct horse battery";
const secret = "sessions-test-secret-0123456789abcdef";
const chrome =
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";
const firefox = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0";

let server: RunningServer;
let account: TestAccount;
let other: TestAccount;
let adminEmail: string;
let admin: string;
let otherAdmin: string;
const sockets: Socket[] = [];

beforeAll(async () => {
  server = await startServer({ env: { NEXTAUTH_SECRET: secret } });
  account = await createTestAccount(server, { name: "Sessions Inc", numbers: 0 });
  other = await createTestAccount(server, { name: "Elsewhere", numbers: 0 });
  adminEmail = `admin-${account.accountId}@example.com`;
  await createUser({ accountId: account.accountId, email: adminEmail, password, role: "admin" });
  const otherEmail = `admin-${other.accountId}@example.com`;
  await createUser({ accountId: other.accountId, email: otherEmail, password, role: "admin" });
  admin = await portalCookie(server, adminEmail, password);
  otherAdmin = await portalCookie(server, otherEmail, password);
});

afterAll(async () => {
  for (const socket of sockets) socket.close();
  await releaseFactories();
  await server?.stop();
});

let serial = 0;
/** A new agent of the account (or another), signed in nowhere yet. */
async function newUser(accountId = account.accountId): Promise<{ id: string; email: string }> {
  const email = `user${++serial}-${accountId}@example.com`;
  const user = await createUser({ accountId, email, password, role: "agent" });
  return { id: user.id, email };
}

const adminPath = (rest: string, accountId = account.accountId) => `/api/admin/accounts/${accountId}${rest}`;

async function asAdmin(method: string, rest: string, cookie = admin, accountId = account.accountId) {
  return call(server, method, adminPath(rest, accountId), { headers: { cookie } });
}

/** A socket.io handshake with the cookie: "connected", or the refusal's message. */
async function handshake(cookie: string, on = server): Promise<{ outcome: string; socket: Socket }> {
  const socket = io(on.baseUrl, {
    path: "/socket.io",
    transports: ["websocket"],
    reconnection: false,
    extraHeaders: { cookie },
  });
  sockets.push(socket);
  const outcome = await new Promise<string>((resolve) => {
    socket.on("connect", () => resolve("connected"));
    socket.on("connect_error", (error) => resolve(error.message));
  });
  return { outcome, socket };
}

/** What a copy of the cookie gets: the admin API's status, where a page sends it, and the socket.io handshake. */
async function reach(cookie: string) {
  const api = await call(server, "GET", adminPath("/conversations"), { headers: { cookie } });
  const page = await fetch(`${server.baseUrl}/conversations`, { redirect: "manual", headers: { cookie } });
  const { outcome, socket } = await handshake(cookie);
  socket.close();
  return {
    api: api.status,
    page: page.status === 200 ? "shown" : (page.headers.get("location") ?? `HTTP ${page.status}`),
    socket: outcome,
  };
}

const ACCEPTED = { api: 200, page: "shown", socket: "connected" };
const REFUSED = { api: 401, page: expect.stringMatching(/\/login/), socket: "Unauthorized" };

/** An open live connection: when and why it is closed. */
type Dropped = { closed: Promise<{ reason: string; at: number }> };
async function liveSocket(cookie: string, on = server): Promise<Dropped> {
  const { outcome, socket } = await handshake(cookie, on);
  expect(outcome).toBe("connected");
  return { closed: new Promise((resolve) => socket.on("disconnect", (reason) => resolve({ reason, at: Date.now() }))) };
}

async function expectClosedAtOnce(dropped: Dropped, endedAt: number) {
  const { reason, at } = await dropped.closed;
  expect(reason).toBe("io server disconnect");
  // At once, not at the next periodic re-check of open sockets (every 5 s).
  expect(at - endedAt).toBeLessThan(1_500);
}

async function auditOf(action: string, target: string) {
  return db().auditEvent.findMany({ where: { accountId: account.accountId, action, target } });
}

describe("a copy of the session cookie", () => {
  it("is refused after sign-out, and the session's live connection is closed", async () => {
    const user = await newUser();
    const cookie = await portalCookie(server, user.email, password);
    const copy = cookie;
    expect(await reach(copy)).toEqual(ACCEPTED);
    const dropped = await liveSocket(cookie);

    const cleared = await portalSignOut(server, cookie);
    const endedAt = Date.now();
    expect(cleared.some((line) => /next-auth\.session-token=;/.test(line))).toBe(true);

    expect(await reach(copy)).toEqual(REFUSED);
    await expectClosedAtOnce(dropped, endedAt);
    expect(await auditOf("signout", "")).toEqual([
      expect.objectContaining({ actor: `user:${user.email}`, action: "signout" }),
    ]);
  });

  it("is refused after an admin's Sign out everywhere, for every session of the user", async () => {
    const user = await newUser();
    const first = await portalCookie(server, user.email, password);
    const second = await portalCookie(server, user.email, password, { userAgent: firefox });
    expect(await reach(first)).toEqual(ACCEPTED);
    const dropped = await liveSocket(second);

    const everywhere = await asAdmin("DELETE", `/users/${user.id}/sessions`);
    const endedAt = Date.now();
    expect(everywhere.status).toBe(200);
    expect(everywhere.json.data).toMatchObject({ ended: 2 });

    expect(await reach(first)).toEqual(REFUSED);
    expect(await reach(second)).toEqual(REFUSED);
    await expectClosedAtOnce(dropped, endedAt);
    const [entry] = await auditOf("user.signed_out_everywhere", user.email);
    expect(entry).toMatchObject({ actor: `user:${adminEmail}`, detail: "2 sessions ended" });
    // The user signs in again as usual.
    expect(await reach(await portalCookie(server, user.email, password))).toEqual(ACCEPTED);
  });

  it("is refused after an admin revokes that one session; the user's other session goes on", async () => {
    const user = await newUser();
    const kept = await portalCookie(server, user.email, password, { userAgent: chrome });
    const revoked = await portalCookie(server, user.email, password, { userAgent: firefox });
    const listed = await asAdmin("GET", `/users/${user.id}/sessions`);
    expect(listed.status).toBe(200);
    const sessions = listed.json.data.sessions as { id: string; browser: string }[];
    expect(sessions.map((s) => s.browser).sort()).toEqual(["Chrome 131 on Windows", "Firefox 133 on Linux"]);
    const target = sessions.find((s) => s.browser.startsWith("Firefox"))!;
    const dropped = await liveSocket(revoked);

    const revoke = await asAdmin("DELETE", `/users/${user.id}/sessions/${target.id}`);
    const endedAt = Date.now();
    expect(revoke.status).toBe(200);
    expect(revoke.json.data).toMatchObject({ ended: 1 });

    expect(await reach(revoked)).toEqual(REFUSED);
    expect(await reach(kept)).toEqual(ACCEPTED);
    await expectClosedAtOnce(dropped, endedAt);
    const [entry] = await auditOf("session.revoked", user.email);
    expect(entry).toMatchObject({ actor: `user:${adminEmail}`, detail: "Firefox 133 on Linux" });
    // The Users listing no longer shows it.
    const users = await asAdmin("GET", "/users?count=100");
    const row = (users.json.data.users as { id: string; sessions: { browser: string }[] }[]).find(
      (u) => u.id === user.id,
    )!;
    expect(row.sessions.map((s) => s.browser)).toEqual(["Chrome 131 on Windows"]);
  });

  it("of another session is refused after the user changes their password; the session that changed it goes on", async () => {
    const user = await newUser();
    const own = await portalCookie(server, user.email, password);
    const elsewhere = await portalCookie(server, user.email, password);
    const dropped = await liveSocket(elsewhere);
    const change = (body: unknown) =>
      call(server, "POST", adminPath("/profile/password"), {
        headers: { cookie: own, "content-type": "application/json" },
        body,
      });

    const wrong = await change({ currentPassword: "not the password", newPassword: "a brand new passphrase" });
    expect(wrong.status).toBe(400);
    expect(wrong.json.data).toMatchObject({ field: "currentPassword" });
    const short = await change({ currentPassword: password, newPassword: "short1" });
    expect(short.status).toBe(400);
    expect(short.json.data).toMatchObject({ field: "newPassword" });
    expect(short.json.data.error_message).toMatch(/at least 12 characters/);
    expect(await reach(elsewhere)).toEqual(ACCEPTED);

    const changed = await change({ currentPassword: password, newPassword: "a brand new passphrase" });
    const endedAt = Date.now();
    expect(changed.status).toBe(200);
    expect(changed.json.data).toMatchObject({ changed: true, endedSessions: 1 });

    expect(await reach(elsewhere)).toEqual(REFUSED);
    expect(await reach(own)).toEqual(ACCEPTED);
    await expectClosedAtOnce(dropped, endedAt);
    await expect(portalCookie(server, user.email, password)).rejects.toThrow(/sign-in .* failed/);
    expect(await reach(await portalCookie(server, user.email, "a brand new passphrase"))).toEqual(ACCEPTED);
    expect(await auditOf("password.changed", user.email)).toEqual([
      expect.objectContaining({ actor: `user:${user.email}`, detail: "1 other session ended" }),
    ]);
  });

  it("is refused once the user is disabled, and stays refused when they are enabled again", async () => {
    const user = await newUser();
    const cookie = await portalCookie(server, user.email, password);
    const dropped = await liveSocket(cookie);
    const disable = await call(server, "PATCH", adminPath(`/users/${user.id}`), {
      headers: { cookie: admin, "content-type": "application/json" },
      body: { disabled: true },
    });
    const endedAt = Date.now();
    expect(disable.status).toBe(200);
    expect(await reach(cookie)).toEqual(REFUSED);
    await expectClosedAtOnce(dropped, endedAt);

    const enable = await call(server, "PATCH", adminPath(`/users/${user.id}`), {
      headers: { cookie: admin, "content-type": "application/json" },
      body: { disabled: false },
    });
    expect(enable.status).toBe(200);
    expect(await reach(cookie)).toEqual(REFUSED);
  });

  it("is refused when the session expired, or the token names no session (issued before sessions were recorded)", async () => {
    const user = await newUser();
    const cookie = await portalCookie(server, user.email, password);
    await db().portalSession.updateMany({ where: { userId: user.id }, data: { expiresAt: new Date(Date.now() - 1) } });
    expect(await reach(cookie)).toEqual(REFUSED);

    const token = await encode({
      token: { sub: user.id, email: user.email, accountId: account.accountId, role: "agent" },
      secret,
    });
    const withoutSession = `next-auth.session-token=${token}`;
    expect(await reach(withoutSession)).toEqual(REFUSED);
    // The same token with a session id of the user is the control: the forged cookie is otherwise well made.
    const fresh = await portalCookie(server, user.email, password);
    const [session] = await db().portalSession.findMany({
      where: { userId: user.id, revokedAt: null, expiresAt: { gt: new Date() } },
    });
    const withSession = await encode({
      token: { sub: user.id, email: user.email, accountId: account.accountId, role: "agent", sid: session!.id },
      secret,
    });
    expect(await reach(`next-auth.session-token=${withSession}`)).toEqual(ACCEPTED);
    expect(await reach(fresh)).toEqual(ACCEPTED);
    // A session id of another user is not the token's user's.
    const stranger = await newUser();
    await portalCookie(server, stranger.email, password);
    const borrowed = await encode({
      token: { sub: stranger.id, email: stranger.email, accountId: account.accountId, role: "agent", sid: session!.id },
      secret,
    });
    expect(await reach(`next-auth.session-token=${borrowed}`)).toEqual(REFUSED);
  });
});

describe("the session lists", () => {
  it("show each session's browser, address and last use, the viewer's own marked", async () => {
    const user = await newUser();
    const cookie = await portalCookie(server, user.email, password, { userAgent: chrome });
    await portalCookie(server, user.email, password, { userAgent: firefox });

    const own = await call(server, "GET", adminPath("/profile/sessions"), { headers: { cookie } });
    expect(own.status).toBe(200);
    const listed = own.json.data.sessions as Record<string, unknown>[];
    expect(listed).toHaveLength(2);
    const mine = listed.find((s) => s.current === true)!;
    expect(mine).toMatchObject({ browser: "Chrome 131 on Windows", ip: expect.stringMatching(/127\.0\.0\.1/) });
    expect(listed.find((s) => s.current === false)).toMatchObject({ browser: "Firefox 133 on Linux" });
    expect(Date.now() - Date.parse(String(mine.lastSeenAt))).toBeLessThan(60_000);

    // Last seen moves with use, written at most once a minute.
    const earlier = new Date(Date.now() - 5 * 60_000);
    await db().portalSession.update({ where: { id: String(mine.id) }, data: { lastSeenAt: earlier } });
    const seen = async () =>
      (await db().portalSession.findUniqueOrThrow({ where: { id: String(mine.id) } })).lastSeenAt.getTime();
    await call(server, "GET", adminPath("/profile/sessions"), { headers: { cookie } });
    const touched = await seen();
    expect(touched).toBeGreaterThan(earlier.getTime() + 60_000);
    await call(server, "GET", adminPath("/profile/sessions"), { headers: { cookie } });
    expect(await seen()).toBe(touched);

    const byAdmin = await asAdmin("GET", `/users/${user.id}/sessions`);
    expect((byAdmin.json.data.sessions as { browser: string; lastSeenAt: string }[]).map((s) => s.browser)).toEqual([
      "Chrome 131 on Windows",
      "Firefox 133 on Linux",
    ]);
  });

  it("let a user sign out their own other sessions, and nobody else's", async () => {
    const user = await newUser();
    const cookie = await portalCookie(server, user.email, password);
    const second = await portalCookie(server, user.email, password);
    const someoneElse = await newUser();
    await portalCookie(server, someoneElse.email, password);
    const [theirs] = await db().portalSession.findMany({ where: { userId: someoneElse.id } });
    const own = await call(server, "GET", adminPath("/profile/sessions"), { headers: { cookie } });
    const otherSession = (own.json.data.sessions as { id: string; current: boolean }[]).find((s) => !s.current)!;

    const foreign = await call(server, "DELETE", adminPath(`/profile/sessions/${theirs!.id}`), { headers: { cookie } });
    expect(foreign.status).toBe(404);
    const ended = await call(server, "DELETE", adminPath(`/profile/sessions/${otherSession.id}`), {
      headers: { cookie },
    });
    expect(ended.status).toBe(200);
    expect(await reach(second)).toEqual(REFUSED);
    expect(await reach(cookie)).toEqual(ACCEPTED);
  });

  it("are out of reach of another account's admin, who can neither list nor revoke", async () => {
    const user = await newUser();
    const cookie = await portalCookie(server, user.email, password);
    const [session] = await db().portalSession.findMany({ where: { userId: user.id } });

    // Through their own account's path: this account's user and session are not found there.
    const viaOwnPath = [
      await asAdmin("GET", `/users/${user.id}/sessions`, otherAdmin, other.accountId),
      await asAdmin("DELETE", `/users/${user.id}/sessions`, otherAdmin, other.accountId),
      await asAdmin("DELETE", `/users/${user.id}/sessions/${session!.id}`, otherAdmin, other.accountId),
    ];
    expect(viaOwnPath.map((r) => r.status)).toEqual([404, 404, 404]);
    expect(viaOwnPath.map((r) => r.json.status)).toEqual(["NotFound", "NotFound", "NotFound"]);
    // Through this account's path: forbidden.
    const viaThisPath = [
      await asAdmin("GET", `/users/${user.id}/sessions`, otherAdmin),
      await asAdmin("DELETE", `/users/${user.id}/sessions`, otherAdmin),
      await asAdmin("DELETE", `/users/${user.id}/sessions/${session!.id}`, otherAdmin),
    ];
    expect(viaThisPath.map((r) => r.status)).toEqual([403, 403, 403]);
    // With the other account's API key too.
    const byKey = await call(server, "DELETE", adminPath(`/users/${user.id}/sessions`, other.accountId), {
      headers: other.headers,
    });
    expect(byKey.status).toBe(404);
    // A session named under another user of the same account is not found either.
    const bystander = await newUser();
    const mismatched = await asAdmin("DELETE", `/users/${bystander.id}/sessions/${session!.id}`);
    expect(mismatched.status).toBe(404);

    expect(await reach(cookie)).toEqual(ACCEPTED);
    expect(await db().auditEvent.count({ where: { target: user.email, action: { startsWith: "session" } } })).toBe(0);
  });
});

describe("ended sessions", () => {
  it("are deleted by the retention pass a day after they ended; open ones stay", async () => {
    const user = await newUser();
    for (let i = 0; i < 4; i++) await portalCookie(server, user.email, password);
    const rows = await db().portalSession.findMany({ where: { userId: user.id }, orderBy: { id: "asc" } });
    const dayAndABit = new Date(Date.now() - 25 * 3_600_000);
    await db().portalSession.update({ where: { id: rows[0]!.id }, data: { revokedAt: dayAndABit } });
    await db().portalSession.update({ where: { id: rows[1]!.id }, data: { expiresAt: dayAndABit } });
    await db().portalSession.update({ where: { id: rows[2]!.id }, data: { revokedAt: new Date() } });

    const sweeper = new RetentionSweeper({
      intervalMs: 60_000,
      webhookRetentionMs: 30 * 86_400_000,
      messageRetentionMs: null,
    });
    const pass = await sweeper.runOnce();
    expect(pass.portalSessions).toBe(2);
    const left = await db().portalSession.findMany({ where: { userId: user.id } });
    expect(left.map((s) => s.id).sort()).toEqual([rows[2]!.id, rows[3]!.id].sort());
  });
});

describe("with several servers", () => {
  it("a session ended through one server loses its live connection on another at once (the Redis adapter)", async () => {
    const env = { NEXTAUTH_SECRET: secret, REDIS_URL: process.env.PARLEY_TEST_REDIS_URL ?? "redis://127.0.0.1:6379" };
    const [a, b] = await Promise.all([
      startServer({ database: server.database, env }),
      startServer({ database: server.database, env }),
    ]);
    try {
      const user = await newUser();
      const cookie = await portalCookie(a, user.email, password);
      const dropped = await liveSocket(cookie, b);
      const everywhere = await call(a, "DELETE", adminPath(`/users/${user.id}/sessions`), {
        headers: { cookie: admin },
      });
      const endedAt = Date.now();
      expect(everywhere.json.data).toMatchObject({ ended: 1 });
      await expectClosedAtOnce(dropped, endedAt);
      expect((await handshake(cookie, b)).outcome).toBe("Unauthorized");
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  }, 120_000);
});
