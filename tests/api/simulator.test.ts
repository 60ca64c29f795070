import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../helpers/server";
import { call, createTestAccount, randomNumber, releaseFactories, type TestAccount } from "../helpers/factories";
import { portalCookie } from "../helpers/portal-session";
import { createUser } from "../../lib/accounts/manage-accounts";
import { db } from "../../lib/db/client";

// The phone simulator's admin routes: a text from a simulated phone takes the inbound path of a real one.

let server: RunningServer;
let account: TestAccount;
let other: TestAccount;
let admin: string;
let agent: string;
const password = "correct horse battery";

beforeAll(async () => {
  server = await startServer();
  account = await createTestAccount(server, { name: "Simulated" });
  other = await createTestAccount(server, { name: "Other" });
  for (const role of ["admin", "agent"] as const) {
    await createUser({
      accountId: account.accountId,
      email: `${role}-${account.accountId}@example.com`,
      password,
      role,
    });
  }
  // With a webhook URL configured, every inbound message has its event in the outbox (the worker is off here, so it
  // stays there to be looked at).
  await db().webhookEndpoint.create({ data: { accountId: account.accountId, url: "https://hooks.example.com/sms" } });
  admin = await portalCookie(server, `admin-${account.accountId}@example.com`, password);
  agent = await portalCookie(server, `agent-${account.accountId}@example.com`, password);
});

afterAll(async () => {
  await releaseFactories();
  await server?.stop();
});

const inbound = (accountId: string) => `/api/admin/accounts/${accountId}/simulator/inbound`;
const thread = (accountId: string, phone: string, accountNumber: string) =>
  `/api/admin/accounts/${accountId}/simulator/thread?phone=${encodeURIComponent(phone)}&accountNumber=${accountNumber}`;

function textFrom(cookie: string, accountId: string, body: Record<string, unknown>) {
  return call(server, "POST", inbound(accountId), { headers: { cookie, "content-type": "application/json" }, body });
}

describe("a text from a simulated phone", () => {
  it("is stored as an inbound message in the phone's conversation, listed, with its webhook event", async () => {
    const phone = randomNumber();
    // Before its first text the phone has no conversation with the number.
    const before = await call(server, "GET", thread(account.accountId, phone, account.numbers[0]!), {
      headers: { cookie: admin },
    });
    expect(before.json.data.thread).toMatchObject({ conversationId: null, total: 0, messages: [] });
    const res = await textFrom(admin, account.accountId, {
      phone: `+${phone}`,
      accountNumber: `+${account.numbers[0]}`,
      text: "Hello from the simulator",
    });
    expect(res.status, res.text).toBe(200);
    expect(res.json.status).toBe("UpdateSuccessful");
    const { messageId, conversationId, keyword, replyMessageId } = res.json.data;
    expect(keyword).toBeNull();
    expect(replyMessageId).toBeNull();

    const stored = await db().message.findUnique({ where: { id: messageId } });
    expect(stored).toMatchObject({
      accountId: account.accountId,
      direction: "inbound",
      fromNumber: phone,
      toNumber: account.numbers[0],
      body: "Hello from the simulator",
      status: "",
      conversationId,
    });
    const conversation = await db().conversation.findUnique({ where: { id: conversationId } });
    expect(conversation).toMatchObject({ accountNumber: account.numbers[0], remoteNumber: phone });

    const listed = await call(
      server,
      "GET",
      `/v3/messages?accountId=${account.accountId}&direction=inbound&from=${phone}`,
      {
        headers: account.headers,
      },
    );
    expect(listed.json.data.results.map((m: { messageId: string }) => m.messageId)).toEqual([messageId]);
    const events = await db().webhookEvent.findMany({ where: { messageId } });
    expect(events.map((e) => e.kind)).toEqual(["message-received"]);

    const audit = await db().auditEvent.findFirst({ where: { accountId: account.accountId, target: messageId } });
    expect(audit).toMatchObject({ action: "simulator.inbound", actor: `user:admin-${account.accountId}@example.com` });

    const shown = await call(server, "GET", thread(account.accountId, phone, account.numbers[0]!), {
      headers: { cookie: admin },
    });
    expect(shown.status, shown.text).toBe(200);
    // The thread names its conversation: the live feed's changes carry it, and the page puts them in this phone.
    expect(shown.json.data.thread).toMatchObject({
      phone,
      accountNumber: account.numbers[0],
      conversationId,
      optStatus: "",
      total: 1,
      messages: [{ messageId, direction: "inbound", body: "Hello from the simulator", status: "" }],
    });
  });

  it("STOP opts the phone out, queues the automatic reply to it, and a send to it is refused", async () => {
    const phone = randomNumber();
    const [accountNumber] = account.numbers;
    const res = await textFrom(admin, account.accountId, { phone, accountNumber, text: "stop" });
    expect(res.status, res.text).toBe(200);
    expect(res.json.data.keyword).toBe("out");
    const replyId = res.json.data.replyMessageId;
    expect(replyId).toEqual(expect.any(String));

    const opt = await call(server, "GET", `/api/admin/accounts/${account.accountId}/opt/numbers?status=out`, {
      headers: { cookie: admin },
    });
    expect(opt.json.data.numbers.map((n: { number: string }) => n.number)).toContain(phone);

    const shown = await call(server, "GET", thread(account.accountId, phone, accountNumber!), {
      headers: { cookie: admin },
    });
    const { messages, optStatus } = shown.json.data.thread;
    expect(optStatus).toBe("out");
    expect(messages.map((m: { direction: string; body: string }) => [m.direction, m.body])).toEqual([
      ["inbound", "stop"],
      ["outbound", expect.stringContaining("you are unsubscribed")],
    ]);
    expect(messages[1]).toMatchObject({ messageId: replyId, status: "queued", automatic: true });
    const reply = await db().message.findUnique({ where: { id: replyId } });
    expect(reply).toMatchObject({ fromNumber: accountNumber, toNumber: phone, userType: "automatic" });

    const sent = await call(server, "POST", "/v3/messages", {
      headers: account.headers,
      body: { accountId: account.accountId, from: accountNumber, to: phone, body: "Still there?" },
    });
    expect(sent.json.data.messageInfo[0]).toMatchObject({ status: "rejected", reason: "OptedOut" });

    const start = await textFrom(admin, account.accountId, { phone, accountNumber, text: "START" });
    expect(start.json.data.keyword).toBe("in");
    const again = await call(server, "POST", "/v3/messages", {
      headers: account.headers,
      body: { accountId: account.accountId, from: accountNumber, to: phone, body: "Welcome back" },
    });
    expect(again.json.data.messageInfo[0].status).toBe("accepted");
  });

  it("is the account's admins' only: an agent gets 403, another account's id 403, the account's API key passes", async () => {
    const body = { phone: randomNumber(), accountNumber: account.numbers[0], text: "hi" };
    const byAgent = await textFrom(agent, account.accountId, body);
    expect(byAgent.status).toBe(403);
    const agentThread = await call(server, "GET", thread(account.accountId, body.phone, account.numbers[0]!), {
      headers: { cookie: agent },
    });
    expect(agentThread.status).toBe(403);

    const elsewhere = await textFrom(admin, other.accountId, { ...body, accountNumber: other.numbers[0] });
    expect(elsewhere.status).toBe(403);
    expect(elsewhere.json.status).toBe("Forbidden");
    const otherThread = await call(server, "GET", thread(other.accountId, body.phone, other.numbers[0]!), {
      headers: { cookie: admin },
    });
    expect(otherThread.status).toBe(403);
    expect(await db().message.count({ where: { fromNumber: body.phone } })).toBe(0);

    const byKey = await call(server, "POST", inbound(account.accountId), { headers: account.headers, body });
    expect(byKey.status, byKey.text).toBe(200);
  });

  it("refuses an account number the account does not hold, naming the field", async () => {
    const res = await textFrom(admin, account.accountId, {
      phone: randomNumber(),
      accountNumber: other.numbers[0],
      text: "hi",
    });
    expect(res.status).toBe(400);
    expect(res.json.status).toBe("InvalidRequest");
    expect(res.json.data.field).toBe("accountNumber");
    expect(res.json.data.error_message).toContain("is not one of this account's numbers");

    const read = await call(server, "GET", thread(account.accountId, randomNumber(), other.numbers[0]!), {
      headers: { cookie: admin },
    });
    expect(read.status).toBe(400);
    expect(read.json.data.field).toBe("accountNumber");

    const own = await textFrom(admin, account.accountId, {
      phone: account.numbers[1],
      accountNumber: account.numbers[0],
      text: "hi",
    });
    expect(own.status).toBe(400);
    expect(own.json.data.field).toBe("phone");
  });

  it("refuses an invalid phone number, an empty text and unknown fields as InvalidRequest naming the field", async () => {
    for (const phone of ["12345", "+1555", "not a number", ""]) {
      const res = await textFrom(admin, account.accountId, { phone, accountNumber: account.numbers[0], text: "hi" });
      expect(res.status, phone).toBe(400);
      expect(res.json.status).toBe("InvalidRequest");
      expect(res.json.data.field).toBe("phone");
      expect(res.json.data.error_message).toMatch(/^phone: is (not a valid phone number|required)/);
    }
    const read = await call(server, "GET", thread(account.accountId, "abc", account.numbers[0]!), {
      headers: { cookie: admin },
    });
    expect(read.status).toBe(400);
    expect(read.json.data.field).toBe("phone");

    const empty = await textFrom(admin, account.accountId, {
      phone: randomNumber(),
      accountNumber: account.numbers[0],
      text: "   ",
    });
    expect(empty.json.data.field).toBe("text");
    const unknown = await textFrom(admin, account.accountId, {
      phone: randomNumber(),
      accountNumber: account.numbers[0],
      text: "hi",
      subject: "Hello",
    });
    expect(unknown.status).toBe(400);
    expect(unknown.json.data.error_message).toContain("unknown field(s): subject");
    // The phone's pictures are uploaded to Parley first: it never has Parley fetch an address of its choosing.
    const outside = await textFrom(admin, account.accountId, {
      phone: randomNumber(),
      accountNumber: account.numbers[0],
      text: "hi",
      media: ["https://example.com/a.jpg"],
    });
    expect(outside.status).toBe(400);
    expect(outside.json.data.field).toBe("media");
    expect(outside.json.data.error_message).toContain("media[0]: attach a picture uploaded to Parley (POST /v3/media)");
  });

  it("answers the last messages, oldest first, and how many there are in all", async () => {
    const phone = randomNumber();
    for (const text of ["one", "two", "three"]) {
      const res = await textFrom(admin, account.accountId, { phone, accountNumber: account.numbers[1], text });
      expect(res.status, res.text).toBe(200);
    }
    const res = await call(server, "GET", `${thread(account.accountId, phone, account.numbers[1]!)}&count=2`, {
      headers: { cookie: admin },
    });
    expect(res.json.data.thread.total).toBe(3);
    expect(res.json.data.thread.messages.map((m: { body: string }) => m.body)).toEqual(["two", "three"]);
  });
});

describe("with another carrier", () => {
  let smpp: RunningServer;
  let smppAccount: TestAccount;

  beforeAll(async () => {
    // The worker stays off: no SMSC is needed to see the simulator refuse.
    smpp = await startServer({ env: { CARRIER: "smpp" } });
    smppAccount = await createTestAccount(smpp);
    await createUser({
      accountId: smppAccount.accountId,
      email: `admin-${smppAccount.accountId}@example.com`,
      password,
      role: "admin",
    });
  });

  afterAll(async () => {
    await releaseFactories();
    await smpp?.stop();
  });

  it("refuses to simulate a phone, and the page says how to turn the simulator on", async () => {
    const cookie = await portalCookie(smpp, `admin-${smppAccount.accountId}@example.com`, password);
    const res = await call(smpp, "POST", `/api/admin/accounts/${smppAccount.accountId}/simulator/inbound`, {
      headers: { cookie, "content-type": "application/json" },
      body: { phone: randomNumber(), accountNumber: smppAccount.numbers[0], text: "STOP" },
    });
    expect(res.status).toBe(400);
    expect(res.json.status).toBe("InvalidRequest");
    expect(res.json.data.error_message).toContain("the phone simulator is off");
    expect(res.json.data.error_message).toContain("CARRIER=simulator");
    expect(await db().message.count({ where: { accountId: smppAccount.accountId } })).toBe(0);

    const page = await call(smpp, "GET", "/simulator", { headers: { cookie } });
    expect(page.status).toBe(200);
    expect(page.text).toContain("The phone simulator is off.");
    expect(page.text).toContain("CARRIER=simulator");
  });
});
