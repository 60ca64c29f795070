import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../helpers/server";
import { call, createTestAccount, releaseFactories, type TestAccount } from "../helpers/factories";
import { attemptSignIn, portalCookie } from "../helpers/portal-session";
import { createUser } from "../../lib/accounts/manage-accounts";
import { db } from "../../lib/db/client";
import { navItems } from "../../components/portal/nav-items";
import { adminRoutes } from "../helpers/admin-routes";

// Roles and accounts are enforced on the server for every portal page and every admin route: found by walking
// the source tree, so a page or route added later is covered without editing this file.

const password = "correct horse battery";

let server: RunningServer;
let account: TestAccount;
let other: TestAccount;
let adminEmail: string;
let agentEmail: string;

beforeAll(async () => {
  server = await startServer();
  account = await createTestAccount(server, { name: "Roles Inc" });
  other = await createTestAccount(server, { name: "Elsewhere" });
  adminEmail = `admin-${account.accountId}@example.com`;
  agentEmail = `agent-${account.accountId}@example.com`;
  await createUser({ accountId: account.accountId, email: adminEmail, password, role: "admin", name: "Ada Admin" });
  await createUser({ accountId: account.accountId, email: agentEmail, password, role: "agent", name: "Al Agent" });
});

afterAll(async () => {
  await releaseFactories();
  await server?.stop();
});

async function page(path: string, cookie?: string) {
  const response = await fetch(server.baseUrl + path, {
    redirect: "manual",
    headers: cookie ? { cookie } : {},
  });
  return { status: response.status, location: response.headers.get("location"), text: await response.text() };
}

describe("portal pages", () => {
  it("send a visitor without a session to the sign-in page", async () => {
    for (const item of navItems) {
      const res = await page(item.href);
      expect(res.status, item.href).toBeGreaterThanOrEqual(300);
      expect(res.status, item.href).toBeLessThan(400);
      expect(res.location, item.href).toMatch(/\/login/);
    }
  });

  it("answer an agent with the 403 page on every admin page, without the page's data", async () => {
    const agent = await portalCookie(server, agentEmail, password);
    const adminPages = navItems.filter((item) => item.adminOnly && item.href !== "/");
    expect(adminPages.length).toBeGreaterThanOrEqual(7);
    for (const item of adminPages) {
      const res = await page(item.href, agent);
      expect(res.status, item.href).toBe(403);
      expect(res.text, item.href).toContain("This page is for the account");
      expect(res.text, item.href).not.toContain(account.apiKey.slice(0, 7));
    }
    // The dashboard is the admins' landing page; an agent lands on the conversations instead.
    const home = await page("/", agent);
    expect(home.status).toBeGreaterThanOrEqual(300);
    expect(home.location).toMatch(/\/conversations$/);
    for (const item of navItems.filter((i) => !i.adminOnly)) {
      expect((await page(item.href, agent)).status, item.href).toBe(200);
    }
  });

  it("show an admin every page", async () => {
    const admin = await portalCookie(server, adminEmail, password);
    for (const item of navItems) expect((await page(item.href, admin)).status, item.href).toBe(200);
  });
});

describe("admin routes", () => {
  const routes = adminRoutes();

  it("are found in the source tree", () => {
    expect(routes.length).toBeGreaterThanOrEqual(10);
  });

  it("answer an agent 403 Forbidden on every admins-only route and method", async () => {
    const agent = await portalCookie(server, agentEmail, password);
    for (const route of routes.filter((r) => !r.agents)) {
      for (const method of route.methods) {
        const res = await call(server, method, route.path(account.accountId), {
          headers: { cookie: agent, "content-type": "application/json" },
          body: ["GET", "DELETE"].includes(method) ? undefined : {},
        });
        expect(res.status, `${method} ${route.file}`).toBe(403);
        expect(res.json.status, `${method} ${route.file}`).toBe("Forbidden");
      }
    }
  });

  it("answer another account's id 403 whoever asks, and no credentials 401", async () => {
    const admin = await portalCookie(server, adminEmail, password);
    for (const route of routes) {
      for (const method of route.methods) {
        const init = { body: ["GET", "DELETE"].includes(method) ? undefined : {} };
        const bySession = await call(server, method, route.path(other.accountId), {
          ...init,
          headers: { cookie: admin, "content-type": "application/json" },
        });
        expect(bySession.status, `${method} ${route.file} (session)`).toBe(403);
        const byKey = await call(server, method, route.path(other.accountId), {
          ...init,
          headers: account.headers,
        });
        expect(byKey.status, `${method} ${route.file} (key)`).toBe(403);
        const anonymous = await call(server, method, route.path(account.accountId), {
          ...init,
          headers: { "content-type": "application/json" },
        });
        expect(anonymous.status, `${method} ${route.file} (anonymous)`).toBe(401);
      }
    }
  });
});

describe("sessions", () => {
  it("stop working on the next request when the user is disabled, and follow a role change at once", async () => {
    const email = `temp-${account.accountId}@example.com`;
    const user = await createUser({ accountId: account.accountId, email, password, role: "agent" });
    const cookie = await portalCookie(server, email, password);
    expect((await page("/settings", cookie)).status).toBe(403);

    await db().user.update({ where: { id: user.id }, data: { role: "admin" } });
    expect((await page("/settings", cookie)).status).toBe(200);
    expect(
      (await call(server, "GET", `/api/admin/accounts/${account.accountId}`, { headers: { cookie } })).status,
    ).toBe(200);

    await db().user.update({ where: { id: user.id }, data: { disabledAt: new Date() } });
    const after = await page("/conversations", cookie);
    expect(after.location).toMatch(/\/login/);
    const api = await call(server, "GET", `/api/admin/accounts/${account.accountId}`, { headers: { cookie } });
    expect(api.status).toBe(401);
    // …and cannot sign in again.
    expect(await attemptSignIn(server, email, password)).not.toBeNull();
  });

  it("are recorded in the audit trail, failed ones with the reason and the address", async () => {
    await portalCookie(server, adminEmail, password);
    expect(await attemptSignIn(server, adminEmail, "wrong")).not.toBeNull();
    const events = await db().auditEvent.findMany({
      where: { accountId: account.accountId, target: { in: [adminEmail, ""] } },
      orderBy: { createdAt: "asc" },
    });
    const succeeded = events.filter((e) => e.action === "signin.succeeded" && e.actor === `user:${adminEmail}`);
    expect(succeeded.length).toBeGreaterThan(0);
    expect(succeeded.at(-1)!.ip).toMatch(/127\.0\.0\.1/);
    const failed = events.filter((e) => e.action === "signin.failed");
    expect(failed.at(-1)).toMatchObject({ target: adminEmail, detail: "wrong password" });
    const user = await db().user.findUnique({ where: { email: adminEmail } });
    expect(user?.lastSignInAt).toBeInstanceOf(Date);
  });
});

describe("sign-in throttling", () => {
  it("slows down repeated failures for an email with a growing delay, then locks it", async () => {
    const email = `throttled-${account.accountId}@example.com`;
    await createUser({ accountId: account.accountId, email, password, role: "agent" });
    // Three failures cost nothing…
    for (let i = 0; i < 3; i++) expect(await attemptSignIn(server, email, `wrong-${i}`)).toBe("CredentialsSignin");
    // …the fourth makes the next attempt wait a second, even with the right password.
    expect(await attemptSignIn(server, email, "wrong-3")).toBe("CredentialsSignin");
    expect(await attemptSignIn(server, email, password)).toMatch(
      /^Too many failed sign-ins\. Try again in 1 seconds?\.$/,
    );
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    // A success clears the email's count.
    expect(await attemptSignIn(server, email, password)).toBeNull();
    expect(await attemptSignIn(server, email, "wrong-again")).toBe("CredentialsSignin");

    // Ten failures in a row lock the email for minutes (the lock is in the database: every server sees it).
    await db().signInThrottle.update({
      where: { key: `email:${email}` },
      data: { failures: 9, blockedUntil: null },
    });
    expect(await attemptSignIn(server, email, "wrong-10")).toBe("CredentialsSignin");
    expect(await attemptSignIn(server, email, password)).toMatch(/Try again in 15 minutes\./);
    const locked = await db().auditEvent.findFirst({
      where: { accountId: account.accountId, action: "signin.locked", target: email },
    });
    expect(locked).not.toBeNull();
    // Another user from the same address is not locked out by it.
    expect(await attemptSignIn(server, adminEmail, password)).toBeNull();
  });
});
