import { io } from "socket.io-client";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../helpers/server";
import { call, createTestAccount, releaseFactories, type TestAccount } from "../helpers/factories";
import { attemptSignIn, portalCookie } from "../helpers/portal-session";
import { codeOf, freshStep } from "../helpers/totp-codes";
import { parley } from "../helpers/cli";
import { createUser } from "../../lib/accounts/manage-accounts";
import { db } from "../../lib/db/client";

// Two-factor sign-in over HTTP as a browser and an authenticator app would use it: enrolment on the Profile
// endpoints, the sign-in's code step (next-auth's credentials callback), the account's requirement, resets.

const password = "correct horse battery";
let server: RunningServer;
let account: TestAccount;
let other: TestAccount;
let adminEmail: string;
let adminCookie: string;

beforeAll(async () => {
  server = await startServer();
  account = await createTestAccount(server, { name: "Two Factor Inc" });
  other = await createTestAccount(server, { name: "Elsewhere" });
  adminEmail = `admin-${account.accountId}@example.com`;
  await createUser({ accountId: account.accountId, email: adminEmail, password, role: "admin" });
  adminCookie = await portalCookie(server, adminEmail, password);
});

afterAll(async () => {
  await releaseFactories();
  await server?.stop();
});

// Every sign-in here comes from 127.0.0.1: forget the address's failures between tests, so that one test's wrong
// codes do not slow the next one down (the email's own count is what the throttle test looks at).
afterEach(async () => {
  await db().signInThrottle.deleteMany({ where: { key: { startsWith: "ip:" } } });
});

let users = 0;
async function newUser(role: "admin" | "agent" = "agent", accountId = account.accountId) {
  const email = `user-${++users}-${accountId}@example.com`;
  await createUser({ accountId, email, password, role });
  return { email, cookie: await portalCookie(server, email, password) };
}

const api = (rest: string, accountId = account.accountId) => `/api/admin/accounts/${accountId}${rest}`;

/** A state-changing call as the portal's own pages make it: JSON, from the portal's origin, with the session. */
function post(cookie: string, rest: string, body: unknown = {}, method = "POST", accountId = account.accountId) {
  return call(server, method, api(rest, accountId), {
    headers: { cookie, "content-type": "application/json", origin: server.baseUrl },
    body,
  });
}

/** Sets up and turns on two-factor as the Profile page does; answers the key and the recovery codes. */
async function enrol(cookie: string) {
  await freshStep();
  const setup = await post(cookie, "/profile/two-factor/setup");
  expect(setup.status, setup.text).toBe(200);
  const secret = String(setup.json.data.setup.key).replace(/\s/g, "");
  // The step before the current one: the current and the next stay free for the sign-ins that follow.
  const on = await post(cookie, "/profile/two-factor/enable", { code: await codeOf(secret, -1) });
  expect(on.status, on.text).toBe(200);
  return { secret, recoveryCodes: on.json.data.recoveryCodes as string[] };
}

/** The latest audit entry of an action about `email` (sign-ins name the user as the actor, the rest as target). */
async function lastAudit(action: string, email: string) {
  const who = action === "signin.succeeded" ? { actor: `user:${email}` } : { target: email };
  return db().auditEvent.findFirst({
    where: { action, ...who },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
  });
}

describe("enrolment", () => {
  it("hands out the key only on request, pending until a code from it confirms it", async () => {
    const { email, cookie } = await newUser();
    const status = await call(server, "GET", api("/profile/two-factor"), { headers: { cookie } });
    expect(status.status).toBe(200);
    expect(status.json.data.twoFactor).toMatchObject({ state: "off", required: false });

    const setup = await post(cookie, "/profile/two-factor/setup");
    expect(setup.status, setup.text).toBe(200);
    const { key, qrCode, uri } = setup.json.data.setup;
    const secret = String(key).replace(/\s/g, "");
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(qrCode).toMatch(/^data:image\/svg\+xml;base64,/);
    expect(Buffer.from(qrCode.split(",")[1], "base64").toString()).toContain("<svg");
    expect(uri).toContain(`secret=${secret}`);
    // Stored encrypted, never as the key itself.
    const row = await db().userTwoFactor.findFirst({ where: { user: { email } } });
    expect(row?.secret).not.toContain(secret);
    expect(row?.enabledAt).toBeNull();

    // The Profile page's HTML never carries it, even while a setup is pending.
    const page = await fetch(`${server.baseUrl}/profile`, { headers: { cookie } });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain("Two-factor authentication");
    expect(html).not.toContain(secret);
    expect(html).not.toContain(key);

    // Pending: sign-in does not ask for a code yet.
    expect(await attemptSignIn(server, email, password)).toBeNull();

    const wrong = await post(cookie, "/profile/two-factor/enable", { code: "000000" });
    expect(wrong.status).toBe(400);
    expect(wrong.json.data).toMatchObject({ field: "code" });
    expect(wrong.json.data.error_message).toMatch(/authentication code is wrong/);
    const empty = await post(cookie, "/profile/two-factor/enable", {});
    expect(empty.status).toBe(400);
    expect(empty.json.data.field).toBe("code");

    const on = await post(cookie, "/profile/two-factor/enable", { code: await codeOf(secret) });
    expect(on.status, on.text).toBe(200);
    const codes = on.json.data.recoveryCodes as string[];
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    const stored = await db().twoFactorRecoveryCode.findMany({ where: { user: { email } } });
    expect(stored).toHaveLength(10);
    expect(stored.map((c) => c.hash)).not.toContain(codes[0]);
    expect(await lastAudit("twofactor.enabled", email)).toMatchObject({ actor: `user:${email}` });

    const after = await call(server, "GET", api("/profile/two-factor"), { headers: { cookie } });
    expect(after.json.data.twoFactor).toMatchObject({ state: "on", recoveryCodesLeft: 10 });
    // No second setup over a key that is on.
    expect((await post(cookie, "/profile/two-factor/setup")).status).toBe(400);
  });

  it("signs the user's other sessions out, not the one it was turned on from", async () => {
    const { email, cookie } = await newUser();
    const elsewhere = await portalCookie(server, email, password);
    const stranger = await newUser();
    const status = (c: string) => call(server, "GET", api("/profile/two-factor"), { headers: { cookie: c } });
    expect((await status(elsewhere)).status).toBe(200);

    await freshStep();
    const setup = await post(cookie, "/profile/two-factor/setup");
    const secret = String(setup.json.data.setup.key).replace(/\s/g, "");
    const on = await post(cookie, "/profile/two-factor/enable", { code: await codeOf(secret, -1) });
    expect(on.status, on.text).toBe(200);
    expect(on.json.data.endedSessions).toBe(1);

    expect((await status(cookie)).status).toBe(200);
    expect((await status(elsewhere)).status).toBe(401);
    // Another user's session is not theirs to end.
    expect((await status(stranger.cookie)).status).toBe(200);
    expect(await lastAudit("twofactor.enabled", email)).toMatchObject({ detail: "1 other session ended" });
  });

  it("is a portal user's own: an API key is refused", async () => {
    const res = await call(server, "POST", api("/profile/two-factor/setup"), {
      headers: { ...account.headers, "content-type": "application/json" },
      body: {},
    });
    expect(res.status).toBe(403);
  });
});

describe("signing in with two-factor on", () => {
  it("asks for a code only after the right password, and refuses a wrong code as a failed sign-in", async () => {
    const { email, cookie } = await newUser();
    const { secret } = await enrol(cookie);

    expect(await attemptSignIn(server, email, "wrong password")).toBe("CredentialsSignin");
    expect(await attemptSignIn(server, email, "wrong password", await codeOf(secret))).toBe("CredentialsSignin");
    expect(await attemptSignIn(server, email, password)).toBe("TwoFactorRequired");
    expect(await attemptSignIn(server, email, password, "123")).toBe("TwoFactorWrongCode");
    expect(await lastAudit("signin.failed", email)).toMatchObject({ detail: "wrong two-factor code" });

    expect(await attemptSignIn(server, email, password, await codeOf(secret))).toBeNull();
    // The same code again: refused, it signed in once already.
    const used = await codeOf(secret);
    expect(await attemptSignIn(server, email, password, used)).toBe("TwoFactorWrongCode");
    // The cookie from a code works like any session.
    const session = await portalCookie(server, email, password, { code: await codeOf(secret, 1) });
    const listing = await call(server, "GET", api("/conversations"), { headers: { cookie: session } });
    expect(listing.status).toBe(200);
  });

  it("throttles wrong codes like wrong passwords, and asking without a code clears nothing", async () => {
    const { email, cookie } = await newUser();
    const { secret } = await enrol(cookie);
    for (let i = 0; i < 4; i++) {
      expect(await attemptSignIn(server, email, password, `00000${i}`)).toBe("TwoFactorWrongCode");
      // The password alone (the code step) neither counts nor forgives.
      if (i < 3) expect(await attemptSignIn(server, email, password)).toBe("TwoFactorRequired");
    }
    const row = await db().signInThrottle.findUnique({ where: { key: `email:${email}` } });
    expect(row?.failures).toBe(4);
    // Even the right code waits now.
    expect(await attemptSignIn(server, email, password, await codeOf(secret))).toMatch(/^Too many failed sign-ins/);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect(await attemptSignIn(server, email, password, await codeOf(secret))).toBeNull();
    expect(await db().signInThrottle.findUnique({ where: { key: `email:${email}` } })).toBeNull();
  });

  it("takes each recovery code once, in any case and spacing, and notes it in the audit trail", async () => {
    const { email, cookie } = await newUser();
    const { recoveryCodes } = await enrol(cookie);
    expect(await attemptSignIn(server, email, password, recoveryCodes[0])).toBeNull();
    expect(await lastAudit("signin.succeeded", email)).toMatchObject({ detail: "with a recovery code (9 left)" });
    expect(await attemptSignIn(server, email, password, recoveryCodes[0])).toBe("TwoFactorWrongCode");
    const spaced = recoveryCodes[1]!.toUpperCase().replace(/-/g, " ");
    expect(await attemptSignIn(server, email, password, spaced)).toBeNull();
    const status = await call(server, "GET", api("/profile/two-factor"), { headers: { cookie } });
    expect(status.json.data.twoFactor.recoveryCodesLeft).toBe(8);
  });

  it("new recovery codes replace the old ones; turning off needs a current code", async () => {
    const { email, cookie } = await newUser();
    const { secret, recoveryCodes } = await enrol(cookie);
    expect((await post(cookie, "/profile/two-factor/recovery-codes", { code: "999999" })).status).toBe(400);
    const fresh = await post(cookie, "/profile/two-factor/recovery-codes", { code: await codeOf(secret) });
    expect(fresh.status, fresh.text).toBe(200);
    const newCodes = fresh.json.data.recoveryCodes as string[];
    expect(newCodes).toHaveLength(10);
    expect(newCodes).not.toContain(recoveryCodes[0]);
    expect(await lastAudit("twofactor.recovery_codes_regenerated", email)).not.toBeNull();
    expect(await attemptSignIn(server, email, password, recoveryCodes[0])).toBe("TwoFactorWrongCode");

    expect((await post(cookie, "/profile/two-factor/disable", { code: "111111" })).status).toBe(400);
    const off = await post(cookie, "/profile/two-factor/disable", { code: newCodes[0] });
    expect(off.status, off.text).toBe(200);
    expect(await lastAudit("twofactor.disabled", email)).not.toBeNull();
    expect(await attemptSignIn(server, email, password)).toBeNull();
  });
});

/** Whether the live view's socket.io handshake with this session cookie goes through. */
function liveView(cookie: string): Promise<string> {
  const socket = io(server.baseUrl, {
    path: "/socket.io",
    transports: ["websocket"],
    reconnection: false,
    extraHeaders: { cookie },
  });
  return new Promise<string>((resolve) => {
    socket.on("connect", () => resolve("connected"));
    socket.on("connect_error", (error) => resolve(`refused: ${error.message}`));
  }).finally(() => socket.close());
}

describe("an account that requires two-factor", () => {
  it("is set by an admin who has it on, and then lets a user without it do nothing but enrol", async () => {
    // An admin without two-factor is refused the setting: it would lock them out of their own work.
    const refused = await post(adminCookie, "", { requireTwoFactor: true }, "PUT");
    expect(refused.status).toBe(400);
    expect(refused.json.data.field).toBe("requireTwoFactor");

    const { secret: adminSecret } = await enrol(adminCookie);
    const { email, cookie } = await newUser();
    const set = await post(adminCookie, "", { requireTwoFactor: true }, "PUT");
    expect(set.status, set.text).toBe(200);
    expect(set.json.data.account.requireTwoFactor).toBe(true);

    // The agent without two-factor: 403 on the admin API, sent to /profile by the pages.
    const listing = await call(server, "GET", api("/conversations"), { headers: { cookie } });
    expect(listing.status).toBe(403);
    expect(listing.json.data.error_message).toBe("two-factor enrolment required");
    const page = await fetch(`${server.baseUrl}/conversations`, { headers: { cookie }, redirect: "manual" });
    expect(page.status).toBeGreaterThanOrEqual(300);
    expect(page.status).toBeLessThan(400);
    expect(new URL(page.headers.get("location")!, server.baseUrl).pathname).toBe("/profile");
    const profile = await fetch(`${server.baseUrl}/profile`, { headers: { cookie } });
    expect(profile.status).toBe(200);
    expect(await profile.text()).toContain("Your account requires two-factor sign-in");
    const status = await call(server, "GET", api("/profile/two-factor"), { headers: { cookie } });
    expect(status.json.data.twoFactor).toMatchObject({ state: "off", required: true });
    expect(await liveView(cookie)).toBe("refused: Unauthorized");
    // API keys are not people: the requirement does not touch them.
    expect((await call(server, "GET", api("/users"), { headers: account.headers })).status).toBe(200);

    const { secret } = await enrol(cookie);
    expect((await call(server, "GET", api("/conversations"), { headers: { cookie } })).status).toBe(200);
    const conversations = await fetch(`${server.baseUrl}/conversations`, { headers: { cookie }, redirect: "manual" });
    expect(conversations.status).toBe(200);
    expect(await liveView(cookie)).toBe("connected");
    // …and cannot turn it off while it is required.
    const off = await post(cookie, "/profile/two-factor/disable", { code: await codeOf(secret) });
    expect(off.status).toBe(400);
    expect(off.json.data.error_message).toMatch(/requires two-factor/);

    // Back to optional for the tests that follow (the admin signs in again with a code).
    adminCookie = await portalCookie(server, adminEmail, password, { code: await codeOf(adminSecret) });
    const unset = await post(adminCookie, "", { requireTwoFactor: false }, "PUT");
    expect(unset.status, unset.text).toBe(200);
    expect(email).toBeTruthy();
  });
});

describe("a reset", () => {
  it("by an admin of the account lets the user in with the password alone, and is recorded", async () => {
    const { email, cookie } = await newUser();
    await enrol(cookie);
    const user = await db().user.findUniqueOrThrow({ where: { email } });
    expect(await attemptSignIn(server, email, password)).toBe("TwoFactorRequired");

    // Not by an agent, not by another account's admin.
    const agent = await newUser();
    expect((await post(agent.cookie, `/users/${user.id}/two-factor`, undefined, "DELETE")).status).toBe(403);
    const stranger = await newUser("admin", other.accountId);
    const foreign = await post(stranger.cookie, `/users/${user.id}/two-factor`, undefined, "DELETE", other.accountId);
    expect(foreign.status).toBe(404);

    const users = await call(server, "GET", api("/users?count=100"), { headers: { cookie: adminCookie } });
    expect(users.json.data.users.find((u: { email: string }) => u.email === email)).toMatchObject({ twoFactor: "on" });

    const reset = await post(adminCookie, `/users/${user.id}/two-factor`, undefined, "DELETE");
    expect(reset.status, reset.text).toBe(200);
    expect(reset.json.data.reset).toMatchObject({ email, endedSessions: 1 });
    expect(await lastAudit("twofactor.reset", email)).toMatchObject({
      actor: `user:${adminEmail}`,
      detail: "1 session ended",
    });
    // The session opened before the reset (whoever holds it) is over; the user signs in again.
    const before = await call(server, "GET", api("/profile/two-factor"), { headers: { cookie } });
    expect(before.status).toBe(401);
    expect(await attemptSignIn(server, email, password)).toBeNull();
    expect(await db().twoFactorRecoveryCode.count({ where: { userId: user.id } })).toBe(0);
    // Nothing left to reset.
    const again = await post(adminCookie, `/users/${user.id}/two-factor`, undefined, "DELETE");
    expect(again.status).toBe(400);
  });

  it("of an admin's own two-factor keeps the session it was made from", async () => {
    const { email, cookie } = await newUser("admin");
    await enrol(cookie);
    const user = await db().user.findUniqueOrThrow({ where: { email } });
    const reset = await post(cookie, `/users/${user.id}/two-factor`, undefined, "DELETE");
    expect(reset.status, reset.text).toBe(200);
    expect(reset.json.data.reset.endedSessions).toBe(0);
    const after = await call(server, "GET", api("/profile/two-factor"), { headers: { cookie } });
    expect(after.status).toBe(200);
    expect(after.json.data.twoFactor.state).toBe("off");
  });

  it("by the operator: parley user reset-2fa <email>", async () => {
    const { email, cookie } = await newUser("admin");
    await enrol(cookie);
    const { stdout } = await parley(["user", "reset-2fa", email], server.database.url);
    expect(stdout).toContain(`Two-factor sign-in of ${email} is reset`);
    // The admin's session (the one they enrolled from) is signed out with it.
    expect(stdout).toContain("Their open sessions (1) are signed out.");
    expect(await lastAudit("twofactor.reset", email)).toMatchObject({ actor: "cli" });
    expect(await attemptSignIn(server, email, password)).toBeNull();
    await expect(parley(["user", "reset-2fa", "nobody@example.com"], server.database.url)).rejects.toMatchObject({
      stderr: expect.stringContaining("no portal user nobody@example.com"),
    });
  });
});
