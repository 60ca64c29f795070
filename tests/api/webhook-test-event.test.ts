import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Webhook } from "standardwebhooks";
import { startServer, type RunningServer } from "../helpers/server";
import { call, createTestAccount, releaseFactories, type TestAccount } from "../helpers/factories";
import { portalCookie } from "../helpers/portal-session";
import { startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver";
import { createUser } from "../../lib/accounts/manage-accounts";
import { db } from "../../lib/db/client";
import { setWebhookSettings } from "../../lib/webhooks/manage-webhook";

// The portal's "Send test event" (POST …/webhook/test) against a real receiver on loopback (allowed here by
// WEBHOOK_ALLOW_PRIVATE): signed like a real delivery, the receiver's answer reported, and logged as a test event.
// Also the webhook routes' audit entries and the log's paging used by the page.

let server: RunningServer;
let receiver: WebhookReceiver;
let account: TestAccount;
let other: TestAccount;
let admin: string;
let agent: string;
const password = "correct horse battery";
const HEADER = { name: "Authorization", value: "Bearer test-receiver-token-42" };

const path = (rest: string, accountId = account.accountId) => `/api/admin/accounts/${accountId}${rest}`;
const asAdmin = () => ({ cookie: admin, "content-type": "application/json" });

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  server = await startServer({ env: { WEBHOOK_ALLOW_PRIVATE: "true", WEBHOOK_TIMEOUT_SECONDS: "1" } });
  account = await createTestAccount(server, { numbers: 1 });
  other = await createTestAccount(server, { numbers: 1 });
  const email = (role: string) => `${role}-${account.accountId}@example.com`;
  await createUser({ accountId: account.accountId, email: email("admin"), password, role: "admin" });
  await createUser({ accountId: account.accountId, email: email("agent"), password, role: "agent" });
  admin = await portalCookie(server, email("admin"), password);
  agent = await portalCookie(server, email("agent"), password);
});

afterAll(async () => {
  await releaseFactories();
  await server?.stop();
  await receiver?.close();
});

async function sendTest() {
  const res = await call(server, "POST", path("/webhook/test"), { headers: { cookie: admin } });
  return res;
}

describe("test event", () => {
  it("without a saved URL is a clear 400 naming the URL", async () => {
    const res = await sendTest();
    expect(res.status, res.text).toBe(400);
    expect(res.json.status).toBe("InvalidRequest");
    expect(res.json.data.field).toBe("url");
    expect(res.json.data.error_message).toMatch(/no webhook URL: save one/);
  });

  it("posts a signed sample that verifies with the account's secret, and answers status, latency and body", async () => {
    const set = await call(server, "PUT", path("/webhook"), {
      headers: asAdmin(),
      body: { url: receiver.url, headerName: HEADER.name, headerValue: HEADER.value },
    });
    expect(set.status, set.text).toBe(200);
    const reveal = await call(server, "POST", path(`/webhook/secrets/${set.json.data.webhook.secrets[0].id}/reveal`), {
      headers: asAdmin(),
    });
    const secret = reveal.json.data.secret.secret as string;
    receiver.respond = () => ({ status: 200, body: "thanks, got it" });

    const res = await sendTest();
    expect(res.status, res.text).toBe(200);
    const test = res.json.data.test;
    expect(test).toMatchObject({ ok: true, httpStatus: 200, failure: null, error: null, body: "thanks, got it" });
    expect(test.eventId).toMatch(/^test_/);
    expect(test.latencyMs).toBeGreaterThanOrEqual(0);
    expect(test.latencyMs).toBeLessThan(1000);

    const request = await receiver.waitFor((r) => r.headers["webhook-id"] === test.eventId);
    expect(request.headers["parley-event"]).toBe("message-received");
    expect(request.headers["parley-test"]).toBe("true");
    expect(request.headers.authorization).toBe(HEADER.value);
    const verified = new Webhook(secret).verify(request.body, {
      "webhook-id": request.headers["webhook-id"] as string,
      "webhook-timestamp": request.headers["webhook-timestamp"] as string,
      "webhook-signature": request.headers["webhook-signature"] as string,
    });
    expect(verified).toEqual(request.json);
    expect(request.json).toMatchObject({
      apiVersion: "v3",
      accountId: account.accountId,
      to: account.numbers[0],
      messageType: "sms",
    });
  });

  it("reports a receiver's 500 with the first 500 bytes of its body", async () => {
    receiver.respond = () => ({ status: 500, body: "x".repeat(450) + "é".repeat(200) });
    const res = await sendTest();
    expect(res.status, res.text).toBe(200);
    const test = res.json.data.test;
    expect(test).toMatchObject({ ok: false, httpStatus: 500, failure: "status" });
    expect(test.error).toMatch(/^HTTP 500/);
    expect(test.body.startsWith("x".repeat(450))).toBe(true);
    expect(Buffer.byteLength(test.body)).toBeLessThanOrEqual(502);
    expect(Buffer.byteLength(test.body)).toBeGreaterThanOrEqual(498);
  });

  it("reports a receiver that does not answer in time, and one that refuses the connection", async () => {
    receiver.respond = () => ({ hang: true });
    const slow = (await sendTest()).json.data.test;
    expect(slow).toMatchObject({ ok: false, httpStatus: null, failure: "timeout" });
    expect(slow.error).toMatch(/no answer within 1 s/);
    receiver.respond = () => ({ status: 200 });

    const closed = await call(server, "PUT", path("/webhook"), {
      headers: asAdmin(),
      body: { url: "http://127.0.0.1:1/hooks", headerName: HEADER.name },
    });
    expect(closed.status, closed.text).toBe(200);
    const refused = (await sendTest()).json.data.test;
    expect(refused).toMatchObject({ ok: false, httpStatus: null, failure: "network" });
    expect(refused.error).toMatch(/ECONNREFUSED/);
  });

  it("keeps the stored header value when a save leaves it out", async () => {
    const saved = await call(server, "PUT", path("/webhook"), {
      headers: asAdmin(),
      body: { url: receiver.url, headerName: HEADER.name },
    });
    expect(saved.status, saved.text).toBe(200);
    expect(saved.json.data.webhook.headerValueHint).toBe("••••••••n-42");
    const test = (await sendTest()).json.data.test;
    const request = await receiver.waitFor((r) => r.headers["webhook-id"] === test.eventId);
    expect(request.headers.authorization).toBe(HEADER.value);

    const renamed = await call(server, "PUT", path("/webhook"), {
      headers: asAdmin(),
      body: { url: receiver.url, headerName: "X-Api-Key" },
    });
    expect(renamed.status).toBe(400);
    expect(renamed.json.data.field).toBe("headerValue");
  });

  it("is logged as a test event with its attempt, which the log's filters and pages find", async () => {
    const tests = await call(server, "GET", path("/webhook/events?kind=test&include=attempts&limit=2"), {
      headers: { cookie: admin },
    });
    expect(tests.status, tests.text).toBe(200);
    expect(tests.json.data.total).toBe(5);
    expect(tests.json.data.events).toHaveLength(2);
    const [newest] = tests.json.data.events;
    expect(newest).toMatchObject({ test: true, kind: "message-received", status: "delivered", attempts: 1 });
    expect(newest.attemptLog).toEqual([
      expect.objectContaining({ eventId: newest.id, httpStatus: 200, error: null, url: receiver.url }),
    ]);
    const next = await call(server, "GET", path("/webhook/events?kind=test&include=attempts&limit=2&start=2"), {
      headers: { cookie: admin },
    });
    expect(next.json.data.events.map((e: { status: string }) => e.status)).toEqual(["failed", "failed"]);
    expect(next.json.data.events[0].attemptLog[0]).toMatchObject({ httpStatus: null });
    const failed = await call(server, "GET", path("/webhook/events?status=failed&kind=test"), {
      headers: { cookie: admin },
    });
    expect(failed.json.data.total).toBe(3);
    const real = await call(server, "GET", path("/webhook/events?kind=message-received"), {
      headers: { cookie: admin },
    });
    expect(real.json.data.total).toBe(0);

    const health = await call(server, "GET", path("/webhook/health"), { headers: { cookie: admin } });
    expect(health.status, health.text).toBe(200);
    expect(health.json.data.health).toMatchObject({ configured: true, attempts: 5, accepted: 2, backlog: 0 });
    expect(health.json.data.health.successRate).toBeCloseTo(0.4);
    expect(health.json.data.health.lastError.error).toMatch(/ECONNREFUSED/);
  });

  it("is for the account's admins: an agent's session and another account's key are refused", async () => {
    const asAgent = await call(server, "POST", path("/webhook/test"), { headers: { cookie: agent } });
    expect(asAgent.status).toBe(403);
    const elsewhere = await call(server, "POST", path("/webhook/test"), { headers: other.headers });
    expect(elsewhere.status).toBe(403);
    const health = await call(server, "GET", path("/webhook/health"), { headers: { cookie: agent } });
    expect(health.status).toBe(403);
    const anonymous = await call(server, "POST", path("/webhook/test"));
    expect(anonymous.status).toBe(401);
  });
});

describe("webhook changes", () => {
  it("refuse a private address in words that say why and what to do (this process runs without WEBHOOK_ALLOW_PRIVATE)", async () => {
    expect(process.env.WEBHOOK_ALLOW_PRIVATE).toBeUndefined();
    const refusal = await setWebhookSettings(other.accountId, { url: "http://10.1.2.3/hooks" }).catch((e) => e);
    expect(refusal).toMatchObject({ code: "InvalidRequest", field: "url" });
    expect(refusal.detail).toBe(
      "the webhook URL is refused: 10.1.2.3 is a private address. Parley only calls public internet addresses; a receiver on a private network or this machine needs the server to run with WEBHOOK_ALLOW_PRIVATE=true (for development)",
    );
  });

  it("are in the audit trail with who made them, never with the header's value", async () => {
    const rotated = await call(server, "POST", path("/webhook/rotate-secret?overlapHours=2"), { headers: asAdmin() });
    expect(rotated.status, rotated.text).toBe(200);
    const removed = await call(server, "DELETE", path("/webhook"), { headers: { apikey: account.apiKey } });
    expect(removed.status, removed.text).toBe(200);

    const trail = await db().auditEvent.findMany({
      where: { accountId: account.accountId, action: { startsWith: "webhook." } },
      orderBy: { createdAt: "asc" },
    });
    const email = `user:admin-${account.accountId}@example.com`;
    // Revealing the secret (once, for the signed sample above) is in the trail too.
    const reveals = trail.filter((e) => e.action === "webhook.secret_revealed");
    expect(reveals.map((e) => [e.actor, e.target])).toEqual([[email, expect.stringMatching(/^secret /)]]);
    trail.splice(trail.indexOf(reveals[0]!), 1);
    // The refused save (a new header name without its value) changed nothing and is not in the trail.
    expect(trail.map((e) => [e.action, e.actor])).toEqual([
      ["webhook.updated", email],
      ["webhook.updated", email],
      ["webhook.updated", email],
      ["webhook.secret_rotated", email],
      ["webhook.removed", expect.stringMatching(/^apiKey:/)],
    ]);
    expect(trail[0]).toMatchObject({ target: receiver.url, detail: "header Authorization (new value)" });
    expect(trail[1]).toMatchObject({ target: "http://127.0.0.1:1/hooks", detail: "header Authorization" });
    expect(trail[3]!.detail).toMatch(/^the previous secret signs until \d{4}-/);
    expect(trail[4]!.target).toBe(receiver.url);
    expect(JSON.stringify(trail)).not.toContain(HEADER.value);
  });
});
