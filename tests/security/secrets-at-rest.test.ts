import { randomBytes } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../helpers/server";
import { createTestDatabase, type TestDatabase } from "../helpers/test-database";
import { call, createTestAccount, releaseFactories, type TestAccount } from "../helpers/factories";
import { attemptSignIn, portalCookie } from "../helpers/portal-session";
import { codeOf, freshStep } from "../helpers/totp-codes";
import { startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver";
import { parley } from "../helpers/cli";
import { waitUntil } from "../helpers/wait-for";
import { legacyTotpKey, legacyTotpValue } from "../helpers/legacy-secrets";
import { createUser } from "../../lib/accounts/manage-accounts";
import { db } from "../../lib/db/client";
import { keyId, openSecret } from "../../lib/secrets/secret-box";

// Secrets at rest (docs/SECURITY.md): TOTP keys and webhook signing secrets are stored sealed under
// PARLEY_SECRET_KEY; values stored before it (v1 TOTP keys, plain `whsec_` secrets) keep working and are sealed;
// after a key rotation the previous key still opens them until `parley secrets reseal` moves them to the new one.

const password = "correct horse battery";
const sessionSecret = randomBytes(32).toString("base64url");
const keyA = randomBytes(32);
const keyB = randomBytes(32);
const env = (current: Buffer, previous: Buffer[] = []): Record<string, string> => ({
  NEXTAUTH_SECRET: sessionSecret,
  PARLEY_SECRET_KEY: current.toString("base64"),
  PARLEY_SECRET_KEY_PREVIOUS: previous.map((k) => k.toString("base64")).join(","),
  WEBHOOK_ALLOW_PRIVATE: "true",
  WEBHOOK_TIMEOUT_SECONDS: "2",
});

let database: TestDatabase;
let server: RunningServer;
let receiver: WebhookReceiver;
let account: TestAccount;
let admin: string;

beforeAll(async () => {
  database = await createTestDatabase();
  receiver = await startWebhookReceiver();
  server = await startServer({ database, env: env(keyA) });
  account = await createTestAccount(server, { numbers: 1, name: "Secrets Inc" });
  const email = `admin-${account.accountId}@example.com`;
  await createUser({ accountId: account.accountId, email, password, role: "admin" });
  admin = await portalCookie(server, email, password);
});

afterAll(async () => {
  await releaseFactories();
  await server?.stop();
  await receiver?.close();
  await database?.drop();
});

const api = (rest: string, accountId = account.accountId) => `/api/admin/accounts/${accountId}${rest}`;
const post = (cookie: string, rest: string, body: unknown = {}, accountId = account.accountId) =>
  call(server, "POST", api(rest, accountId), {
    headers: { cookie, "content-type": "application/json", origin: server.baseUrl },
    body,
  });

/** One sign-in with a code; true when a session was started. */
const signsIn = async (email: string, code: string) => (await attemptSignIn(server, email, password, code)) === null;

let users = 0;
/** A user of the account with two-factor on, enrolled through the Profile endpoints. */
async function enrolledUser() {
  const email = `user-${++users}-${account.accountId}@example.com`;
  await createUser({ accountId: account.accountId, email, password, role: "agent" });
  const cookie = await portalCookie(server, email, password);
  await freshStep();
  const setup = await post(cookie, "/profile/two-factor/setup");
  expect(setup.status, setup.text).toBe(200);
  const secret = String(setup.json.data.setup.key).replace(/\s/g, "");
  const on = await post(cookie, "/profile/two-factor/enable", { code: await codeOf(secret, -1) });
  expect(on.status, on.text).toBe(200);
  return { email, secret, userId: await userId(email) };
}

/** A user with two-factor on whose key is stored as before PARLEY_SECRET_KEY: v1, under the session secret. */
async function legacyTotpUser() {
  const email = `legacy-${++users}-${account.accountId}@example.com`;
  await createUser({ accountId: account.accountId, email, password, role: "agent" });
  const id = await userId(email);
  const secret = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP";
  const stored = legacyTotpValue(secret, id, legacyTotpKey(sessionSecret));
  await db().userTwoFactor.create({
    data: { userId: id, secret: stored, enabledAt: new Date(), createdAt: new Date() },
  });
  return { email, secret, userId: id, stored };
}

async function userId(email: string) {
  return (await db().user.findUniqueOrThrow({ where: { email }, select: { id: true } })).id;
}
const storedTotp = async (id: string) =>
  (await db().userTwoFactor.findUniqueOrThrow({ where: { userId: id }, select: { secret: true } })).secret;
const storedWebhook = async (id: string) =>
  (await db().webhookSecret.findUniqueOrThrow({ where: { id }, select: { secret: true } })).secret;

/** The account's current signing secret: its row id and, through the portal's Reveal, the secret itself. */
async function currentWebhookSecret() {
  const settings = await call(server, "GET", api("/webhook"), { headers: { cookie: admin } });
  expect(settings.status, settings.text).toBe(200);
  const id = settings.json.data.webhook.secrets[0].id as string;
  return { id, secret: await reveal(id) };
}
async function reveal(id: string): Promise<string> {
  const res = await post(admin, `/webhook/secrets/${id}/reveal`);
  expect(res.status, res.text).toBe(200);
  return res.json.data.secret.secret as string;
}

/** "Send test event": a signed delivery to the receiver; answers whether its signature verifies with `secret`. */
async function testEventVerifiesWith(secret: string): Promise<boolean> {
  const res = await post(admin, "/webhook/test");
  expect(res.status, res.text).toBe(200);
  const request = await receiver.waitFor((r) => r.headers["webhook-id"] === res.json.data.test.eventId);
  try {
    new Webhook(secret).verify(request.body, {
      "webhook-id": request.headers["webhook-id"] as string,
      "webhook-timestamp": request.headers["webhook-timestamp"] as string,
      "webhook-signature": request.headers["webhook-signature"] as string,
    });
    return true;
  } catch {
    return false;
  }
}

async function reseal(current: Buffer, previous: Buffer[] = []) {
  const { stdout } = await parley(["secrets", "reseal", "--json"], database.url, env(current, previous));
  return JSON.parse(stdout) as Record<
    "totpKeys" | "webhookSecrets",
    Record<"resealed" | "current" | "unreadable", number>
  >;
}

const sealedUnder = (key: Buffer) => new RegExp(`^v2\\.${keyId(key)}\\.[\\w-]+\\.[\\w-]+\\.[\\w-]+$`);

describe("new secrets", () => {
  it("are stored sealed under PARLEY_SECRET_KEY, bound to their row, never in plain text", async () => {
    const user = await enrolledUser();
    const totp = await storedTotp(user.userId);
    expect(totp).toMatch(sealedUnder(keyA));
    expect(totp).not.toContain(user.secret);
    expect(openSecret(totp, `totp:${user.userId}`, { current: keyA, previous: [] })).toBe(user.secret);
    await freshStep();
    expect(await signsIn(user.email, await codeOf(user.secret))).toBe(true);

    const set = await call(server, "PUT", api("/webhook"), {
      headers: { cookie: admin, "content-type": "application/json", origin: server.baseUrl },
      body: { url: receiver.url },
    });
    expect(set.status, set.text).toBe(200);
    const { id, secret } = await currentWebhookSecret();
    expect(secret).toMatch(/^whsec_/);
    const stored = await storedWebhook(id);
    expect(stored).toMatch(sealedUnder(keyA));
    expect(stored).not.toContain(secret.slice("whsec_".length, 20));
    expect(openSecret(stored, `webhook:${id}`, { current: keyA, previous: [] })).toBe(secret);
    expect(await testEventVerifiesWith(secret)).toBe(true);

    // A rotated secret is sealed too.
    const rotated = await post(admin, "/webhook/rotate-secret", {});
    expect(rotated.status, rotated.text).toBe(200);
    const next = await currentWebhookSecret();
    expect(next.id).not.toBe(id);
    expect(await storedWebhook(next.id)).toMatch(sealedUnder(keyA));
  });
});

describe("secrets stored before PARLEY_SECRET_KEY", () => {
  it("a v1 TOTP key still signs in, and is sealed under the key once read", async () => {
    const user = await legacyTotpUser();
    await freshStep();
    expect(await signsIn(user.email, await codeOf(user.secret))).toBe(true);
    const after = await storedTotp(user.userId);
    expect(after).toMatch(sealedUnder(keyA));
    expect(await signsIn(user.email, await codeOf(user.secret, 1))).toBe(true);
  });

  it("a plain webhook secret still signs and reveals, and is sealed once read", async () => {
    const { id } = await currentWebhookSecret();
    const plain = `whsec_${randomBytes(32).toString("base64")}`;
    await db().webhookSecret.update({ where: { id }, data: { secret: plain } });
    expect(await reveal(id)).toBe(plain);
    expect(await storedWebhook(id)).toMatch(sealedUnder(keyA));
    expect(await testEventVerifiesWith(plain)).toBe(true);
  });

  it("`secrets reseal` seals v1 TOTP keys and plain webhook secrets; running it again finds nothing to do", async () => {
    const user = await legacyTotpUser();
    const { id } = await currentWebhookSecret();
    const plain = `whsec_${randomBytes(32).toString("base64")}`;
    await db().webhookSecret.update({ where: { id }, data: { secret: plain } });

    const first = await reseal(keyA);
    expect(first.totpKeys).toMatchObject({ resealed: 1, unreadable: 0 });
    expect(first.webhookSecrets).toMatchObject({ resealed: 1, unreadable: 0 });
    expect(await storedTotp(user.userId)).toMatch(sealedUnder(keyA));
    expect(await storedWebhook(id)).toMatch(sealedUnder(keyA));
    const again = await reseal(keyA);
    expect(again.totpKeys).toMatchObject({ resealed: 0, unreadable: 0 });
    expect(again.webhookSecrets).toMatchObject({ resealed: 0, unreadable: 0 });

    await freshStep();
    expect(await signsIn(user.email, await codeOf(user.secret))).toBe(true);
    expect(await reveal(id)).toBe(plain);
    expect(await testEventVerifiesWith(plain)).toBe(true);
  });
});

// The two tests below restart the server two or three times and run the CLI: on a loaded machine that alone takes
// longer than the default timeout.
describe("rotating PARLEY_SECRET_KEY", () => {
  it("the previous key still opens everything; `secrets reseal` moves it to the new key, which then opens everything alone", async () => {
    const user = await enrolledUser();
    const other = await enrolledUser();
    const { id, secret } = await currentWebhookSecret();
    const before = { totp: await storedTotp(other.userId), webhook: await storedWebhook(id) };
    expect(before.webhook).toMatch(sealedUnder(keyA));

    // A key no value was sealed under: nothing opens, nothing is changed.
    const wrong = await reseal(randomBytes(32));
    expect(wrong.totpKeys.resealed).toBe(0);
    expect(wrong.totpKeys.unreadable).toBeGreaterThanOrEqual(2);
    expect(wrong.webhookSecrets.resealed).toBe(0);
    expect(wrong.webhookSecrets.unreadable).toBeGreaterThanOrEqual(1);
    expect(await storedTotp(other.userId)).toBe(before.totp);
    expect(await storedWebhook(id)).toBe(before.webhook);

    await server.stop();
    server = await startServer({ database, env: env(keyB, [keyA]) });
    admin = await portalCookie(server, `admin-${account.accountId}@example.com`, password);
    await freshStep();
    expect(await signsIn(user.email, await codeOf(user.secret))).toBe(true);
    expect(await storedTotp(user.userId)).toMatch(sealedUnder(keyB));
    expect(await reveal(id)).toBe(secret);
    expect(await testEventVerifiesWith(secret)).toBe(true);

    const moved = await reseal(keyB, [keyA]);
    expect(moved.totpKeys.resealed).toBeGreaterThanOrEqual(1);
    expect(moved.totpKeys.unreadable).toBe(0);
    expect(moved.webhookSecrets.unreadable).toBe(0);
    const rows = [
      ...(await db().userTwoFactor.findMany({ select: { secret: true } })),
      ...(await db().webhookSecret.findMany({ select: { secret: true } })),
    ];
    for (const row of rows) expect(row.secret).toMatch(sealedUnder(keyB));

    // The previous key dropped: everything still opens under the new key alone.
    await server.stop();
    server = await startServer({ database, env: env(keyB) });
    admin = await portalCookie(server, `admin-${account.accountId}@example.com`, password);
    await freshStep();
    expect(await signsIn(other.email, await codeOf(other.secret))).toBe(true);
    expect(await reveal(id)).toBe(secret);
    expect(await testEventVerifiesWith(secret)).toBe(true);
  }, 120_000);
});

describe("a key that opens no signing secret", () => {
  it("posts nothing unsigned: events wait with the reason, and the test event says what to do", async () => {
    // With the worker on: its webhook dispatcher is what would post the events.
    await server.stop();
    server = await startServer({ database, env: { ...env(randomBytes(32)), PARLEY_WORKER: "true" } });
    admin = await portalCookie(server, `admin-${account.accountId}@example.com`, password);
    const test = await post(admin, "/webhook/test");
    expect(test.status).toBe(400);
    expect(test.json.data.error_message).toContain("no signing secret can be opened with PARLEY_SECRET_KEY");

    const before = receiver.requests.length;
    const phone = "14155550177";
    await parley(["inbound", "--from", `+${phone}`, "--to", `+${account.numbers[0]}`, "--body", "hi"], database.url);
    const event = await waitUntil(
      "the inbound event's failed attempt",
      () =>
        db().webhookEvent.findFirst({
          where: { accountId: account.accountId, kind: "message-received", lastError: { not: null } },
        }),
      30_000,
    );
    expect(event.lastError).toBe("no signing secret can be opened with PARLEY_SECRET_KEY");
    expect(receiver.requests.slice(before).some((r) => String(r.body).includes(phone))).toBe(false);

    // The key back: the event is delivered, signed.
    await server.stop();
    server = await startServer({ database, env: { ...env(keyB), PARLEY_WORKER: "true" } });
    await db().webhookEvent.update({ where: { id: event.id }, data: { nextAttemptAt: new Date() } });
    const delivered = await receiver.waitFor((r) => r.headers["webhook-id"] === event.id, 30_000);
    expect(delivered.headers["webhook-signature"]).toMatch(/^v1,/);
  }, 120_000);
});

describe("PARLEY_SECRET_KEY", () => {
  it("is refused at start with how to make one when it is not 32 bytes of base64", async () => {
    const result = await parley(["secrets", "reseal"], database.url, {
      ...env(keyA),
      PARLEY_SECRET_KEY: "too-short",
    }).catch((error: { stderr: string; code: number }) => error);
    expect("code" in result && result.code).toBe(1);
    expect(result.stderr).toContain("PARLEY_SECRET_KEY");
    expect(result.stderr).toContain("openssl rand -base64 32");
  });
});
