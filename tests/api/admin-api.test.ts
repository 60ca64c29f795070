import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../helpers/server";
import { call, createTestAccount, releaseFactories, type TestAccount } from "../helpers/factories";
import { portalCookie } from "../helpers/portal-session";
import { createUser } from "../../lib/accounts/manage-accounts";

// The admin API (/api/admin/accounts/{accountId}/…) behind the portal's settings pages: who may call it.

let server: RunningServer;
let account: TestAccount;
let other: TestAccount;
const password = "correct horse battery";

beforeAll(async () => {
  server = await startServer();
  account = await createTestAccount(server, { name: "Acme Admin", rateLimitPerSecond: 25 });
  other = await createTestAccount(server, { name: "Other" });
  await createUser({
    accountId: account.accountId,
    email: `admin-${account.accountId}@example.com`,
    password,
    role: "admin",
  });
  await createUser({
    accountId: account.accountId,
    email: `agent-${account.accountId}@example.com`,
    password,
    role: "agent",
  });
});

afterAll(async () => {
  await releaseFactories();
  await server?.stop();
});

const path = (accountId: string) => `/api/admin/accounts/${accountId}`;

describe("admin API credentials", () => {
  it("answers the account's settings to its API key, in the v3 envelope", async () => {
    const res = await call(server, "GET", path(account.accountId), { headers: { apikey: account.apiKey } });
    expect(res.status, res.text).toBe(200);
    expect(res.json.status).toBe("QueryCompletedSuccessfully");
    expect(res.json.data.account).toMatchObject({ id: account.accountId, name: "Acme Admin", rateLimitPerSecond: 25 });
    expect(res.json.data.account.nextSendAt).toBeUndefined();
  });

  it("refuses another account's id with 403 and no credentials with 401", async () => {
    const forbidden = await call(server, "GET", path(other.accountId), { headers: { apikey: account.apiKey } });
    expect(forbidden.status).toBe(403);
    expect(forbidden.json.status).toBe("Forbidden");
    const anonymous = await call(server, "GET", path(account.accountId));
    expect(anonymous.status).toBe(401);
    const badKey = await call(server, "GET", path(account.accountId), { headers: { apikey: "pk_nope" } });
    expect(badKey.status).toBe(401);
  });

  it("answers a portal admin's session, but not an agent's", async () => {
    const admin = await portalCookie(server, `admin-${account.accountId}@example.com`, password);
    const res = await call(server, "GET", path(account.accountId), { headers: { cookie: admin } });
    expect(res.status, res.text).toBe(200);
    expect(res.json.data.account.name).toBe("Acme Admin");
    const elsewhere = await call(server, "GET", path(other.accountId), { headers: { cookie: admin } });
    expect(elsewhere.status).toBe(403);

    const agent = await portalCookie(server, `agent-${account.accountId}@example.com`, password);
    const refused = await call(server, "GET", path(account.accountId), { headers: { cookie: agent } });
    expect(refused.status).toBe(403);
  });
});
