import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../helpers/server";
import { call, createTestAccount, randomNumber, releaseFactories, type TestAccount } from "../helpers/factories";
import { startFakeTwilio, type FakeTwilio } from "../helpers/fake-twilio";
import { startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver";
import { has, statuses, waitForSdrs, waitUntil } from "../helpers/wait-for";

// A small business on Twilio: a connection added through the admin API, a number routed to it, SMS and MMS sent with
// the v3 API, Twilio's status callbacks and inbound messages coming back signed. Twilio here is a stand-in holding
// each request to Twilio's published API; callbacks are signed with the official helper library.

let server: RunningServer;
let twilio: FakeTwilio;
let receiver: WebhookReceiver;
let account: TestAccount;
let connection: { id: string; name: string; statusUrl: string; inboundUrl: string };
let from: string;

beforeAll(async () => {
  twilio = await startFakeTwilio();
  receiver = await startWebhookReceiver();
  server = await startServer({
    env: {
      PARLEY_WORKER: "true",
      WORKER_POLL_MS: "20",
      RETRY_DELAYS_SECONDS: "1",
      PROVIDER_TIMEOUT_SECONDS: "1",
      WEBHOOK_ALLOW_PRIVATE: "true",
      WEBHOOK_POLL_MS: "50",
    },
  });
  account = await createTestAccount(server, { numbers: 2, rateLimitPerSecond: 20 });
  from = account.numbers[0]!;
  const added = await call(server, "POST", `/api/admin/accounts/${account.accountId}/carriers`, {
    headers: account.headers,
    body: {
      type: "twilio",
      name: "twilio-main",
      fields: { accountSid: twilio.accountSid, authToken: twilio.authToken, apiUrl: twilio.url },
    },
  });
  expect(added.status).toBe(200);
  connection = added.json.data.carrier;
  const routed = await call(server, "PATCH", `/api/admin/accounts/${account.accountId}/numbers/${from}`, {
    headers: account.headers,
    body: { carrier: "twilio-main" },
  });
  expect(routed.json.data.number.carrier).toBe("twilio-main");
  const hook = await call(server, "PUT", `/api/admin/accounts/${account.accountId}/webhook`, {
    headers: account.headers,
    body: { url: receiver.url },
  });
  expect(hook.status).toBe(200);
}, 120_000);

afterAll(async () => {
  await releaseFactories();
  await server?.stop();
  await twilio?.close();
  await receiver?.close();
});

async function send(body: Record<string, unknown>): Promise<string> {
  const res = await call(server, "POST", "/v3/messages", {
    headers: account.headers,
    body: { accountId: account.accountId, from, to: randomNumber(), ...body },
  });
  expect(res.status, res.text).toBe(200);
  return res.json.data.messageInfo[0].messageId as string;
}

/** The Twilio send of a message, once the worker made it (matched by its To). */
async function sendOf(to: string) {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const found = twilio.sent.find((s) => s.form.get("To") === `+${to}`);
    if (found) return found;
    if (Date.now() > deadline)
      throw new Error(`no Twilio send to +${to}: ${twilio.mistakes.join("; ")}\n${server.output().slice(-3000)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function listed(messageId: string) {
  const res = await call(server, "GET", `/v3/messages?accountId=${account.accountId}&count=100`, {
    headers: account.headers,
  });
  return (res.json.data.results as { messageId: string; status: string }[]).find((m) => m.messageId === messageId);
}

describe("a Twilio connection", () => {
  it("shows its credentials only masked, and its callback URLs at this deployment", async () => {
    const res = await call(server, "GET", `/api/admin/accounts/${account.accountId}/carriers`, {
      headers: account.headers,
    });
    expect(res.text).not.toContain(twilio.authToken);
    const [view] = res.json.data.carriers;
    expect(view).toMatchObject({ name: "twilio-main", type: "twilio", numbers: 1 });
    expect(view.credentials.authToken).toBe(`••••${twilio.authToken.slice(-4)}`);
    expect(view.statusUrl).toBe(`${server.baseUrl}/carriers/${connection.id}/status`);
    expect(view.inboundUrl).toBe(`${server.baseUrl}/carriers/${connection.id}/inbound`);
  });

  it("is tested against Twilio's account and balance endpoints", async () => {
    const res = await call(server, "POST", `/api/admin/accounts/${account.accountId}/carriers/${connection.id}/test`, {
      headers: account.headers,
    });
    expect(res.json.data).toMatchObject({ ok: true, words: 'Twilio account "Clinic" is active, balance 12.34 USD.' });
  });

  it("sends an SMS in one request to Messages.json, and Twilio's delivered callback settles it and reaches the webhook", async () => {
    const to = randomNumber();
    const messageId = await send({ to, body: "Your table is ready", referenceId: "table7" });
    const sent = await sendOf(to);
    expect(Object.fromEntries(sent.form)).toEqual({
      To: `+${to}`,
      From: `+${from}`,
      Body: "Your table is ready",
      StatusCallback: connection.statusUrl,
    });
    await waitForSdrs(server, account, messageId, has("wait_dlr"));
    const answer = await twilio.callback(connection.statusUrl, {
      MessageSid: sent.sid,
      MessageStatus: "delivered",
      AccountSid: twilio.accountSid,
      From: `+${from}`,
      To: `+${to}`,
    });
    expect(answer.status).toBe(204);
    const records = await waitForSdrs(server, account, messageId, has("dlr_received"));
    expect(statuses(records)).toEqual(
      expect.arrayContaining(["message_sent", "wait_dlr", "delivered", "dlr_received"]),
    );
    expect(records.find((r) => r.status === "delivered")!.statusDetails).toBe("twilio delivered");
    expect((await listed(messageId))?.status).toBe("delivered");
    const event = await receiver.waitFor((r) => r.json.messageId === messageId && r.json.status === "delivered");
    expect(event.json).toMatchObject({ referenceId: "table7", from, to, status: "delivered" });
    // The same callback again changes nothing.
    const again = await twilio.callback(connection.statusUrl, { MessageSid: sent.sid, MessageStatus: "delivered" });
    expect(again.status).toBe(204);
    const after = await waitForSdrs(server, account, messageId, () => true);
    expect(after.filter((r) => r.status === "delivered")).toHaveLength(1);
  });

  it("sends an MMS with its pictures as MediaUrl fields, never as links in the text", async () => {
    const to = randomNumber();
    await send({
      to,
      body: "Here is the menu",
      media: ["https://example.com/menu.jpg", "https://example.com/wine.png"],
    });
    const sent = await sendOf(to);
    expect(sent.sid).toMatch(/^MM/);
    expect(sent.form.get("Body")).toBe("Here is the menu");
    expect(sent.form.getAll("MediaUrl")).toEqual(["https://example.com/menu.jpg", "https://example.com/wine.png"]);
  });

  it("sends a 3-segment text in one request, and holds the number for 3 s before its next message leaves", async () => {
    const long = "Your order is ready for pickup. ".repeat(14).trim(); // 433 GSM-7 characters: 3 segments
    const [to1, to2] = [randomNumber(), randomNumber()];
    const first = await send({ to: to1, body: long });
    await send({ to: to2, body: "Next" });
    const [a, b] = [await sendOf(to1), await sendOf(to2)];
    expect(a.form.get("Body")).toBe(long);
    // Parts 2 and 3 take their slots at 1 a second: the next message leaves 3 s after the long one.
    expect(b.at - a.at).toBeGreaterThanOrEqual(2_900);
    const records = await waitForSdrs(server, account, first, has("wait_dlr"));
    const sentParts = records.filter((r) => r.status === "message_sent");
    expect(sentParts.map((r) => r.segmentNumber)).toEqual([1, 2, 3]);
    // Twilio's one callback answers all three parts.
    await twilio.callback(connection.statusUrl, { MessageSid: a.sid, MessageStatus: "delivered" });
    const settled = await waitForSdrs(
      server,
      account,
      first,
      (r) => r.filter((x) => x.status === "dlr_received").length === 3,
    );
    expect(settled.filter((r) => r.status === "delivered").map((r) => r.segmentNumber)).toEqual([1, 2, 3]);
    expect((await listed(first))?.status).toBe("delivered");
  });

  it("maps Twilio's error codes to undelivered with the code and its meaning", async () => {
    const to = randomNumber();
    const messageId = await send({ to, body: "Reminder: appointment at 3 pm" });
    const sent = await sendOf(to);
    await waitForSdrs(server, account, messageId, has("wait_dlr"));
    await twilio.callback(connection.statusUrl, {
      MessageSid: sent.sid,
      MessageStatus: "undelivered",
      ErrorCode: "30003",
    });
    const records = await waitForSdrs(server, account, messageId, has("dlr_received"));
    expect(records.find((r) => r.status === "undelivered")!.statusDetails).toBe(
      "twilio 30003: Unreachable destination handset",
    );
    expect((await listed(messageId))?.status).toBe("undelivered");
  });

  it("refuses a forged, unsigned or tampered callback with 403, changes nothing, and audits it", async () => {
    const to = randomNumber();
    const messageId = await send({ to, body: "Your code is 1234" });
    const sent = await sendOf(to);
    await waitForSdrs(server, account, messageId, has("wait_dlr"));
    const params = { MessageSid: sent.sid, MessageStatus: "delivered" };
    expect((await twilio.callback(connection.statusUrl, params, { token: "not-the-auth-token" })).status).toBe(403);
    expect((await twilio.callback(connection.statusUrl, params, { signature: null })).status).toBe(403);
    const signedForOther = await twilio.callback(connection.statusUrl, params, {
      signature: (await import("twilio")).default.getExpectedTwilioSignature(twilio.authToken, connection.statusUrl, {
        ...params,
        MessageStatus: "failed",
      }),
    });
    expect(signedForOther.status).toBe(403);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await listed(messageId))?.status).toBe("sent");
    const audit = await call(
      server,
      "GET",
      `/api/admin/accounts/${account.accountId}/audit?action=carrier.callback_refused`,
      {
        headers: account.headers,
      },
    );
    expect(audit.json.data.events.length).toBeGreaterThanOrEqual(3);
    expect(audit.json.data.events[0]).toMatchObject({ actor: "carrier:twilio-main", target: "status callback" });
  });

  it("receives an MMS reply: in the listing and the customer's webhook, once however often Twilio posts it", async () => {
    const phone = randomNumber();
    const params = {
      MessageSid: `MM${"a".repeat(32)}`,
      AccountSid: twilio.accountSid,
      From: `+${phone}`,
      To: `+${from}`,
      Body: "Here's my cat",
      NumMedia: "1",
      MediaUrl0: "https://api.twilio.com/2010-04-01/Accounts/AC1/Messages/MM1/Media/ME1",
      MediaContentType0: "image/jpeg",
      NumSegments: "1",
      SmsStatus: "received",
    };
    const answer = await twilio.callback(connection.inboundUrl, params);
    expect(answer.status).toBe(200);
    expect(await answer.text()).toContain("<Response></Response>");
    expect((await twilio.callback(connection.inboundUrl, params)).status).toBe(200);
    const event = await receiver.waitFor((r) => r.json.from === phone);
    expect(event.json).toMatchObject({ to: from, body: "Here's my cat", media: [params.MediaUrl0] });
    const res = await call(server, "GET", `/v3/messages?accountId=${account.accountId}&from=${phone}`, {
      headers: account.headers,
    });
    expect(res.json.data.results).toHaveLength(1);
    expect(res.json.data.results[0]).toMatchObject({
      messageType: "mms",
      body: "Here's my cat",
      media: [params.MediaUrl0],
    });
  });

  it("fails a message Twilio refuses (4xx) with Twilio's reason, and retries after a 429 no sooner than Retry-After", async () => {
    twilio.failNext([
      { status: 400, body: { code: 21610, message: "Attempt to send to unsubscribed recipient", status: 400 } },
    ]);
    const refusedTo = randomNumber();
    const refused = await send({ to: refusedTo, body: "Sale today" });
    const records = await waitForSdrs(server, account, refused, has("failed"));
    expect(records.find((r) => r.status === "failed")!.statusDetails).toBe(
      "21610 HTTP 400: Attempt to send to unsubscribed recipient",
    );
    twilio.failNext([
      { status: 429, headers: { "retry-after": "2" }, body: { code: 20429, message: "Too Many Requests" } },
    ]);
    const to = randomNumber();
    const retried = await send({ to, body: "Second try" });
    const retry = await waitForSdrs(server, account, retried, has("retry"));
    const retryAt = Date.parse(/attempt 2 at (\S+)/.exec(retry.find((r) => r.status === "retry")!.statusDetails)![1]!);
    const sent = await sendOf(to);
    expect(sent).toBeTruthy();
    const done = await waitForSdrs(server, account, retried, has("wait_dlr"));
    const leftAt = Date.parse(
      done
        .find((r) => r.status === "message_sent")!
        .timestamp.replace(" UTC", "Z")
        .replace(" ", "T"),
    );
    const triedAt = Date.parse(
      retry
        .find((r) => r.status === "retry")!
        .timestamp.replace(" UTC", "Z")
        .replace(" ", "T"),
    );
    expect(retryAt - triedAt).toBeGreaterThanOrEqual(1_900);
    expect(leftAt).toBeGreaterThanOrEqual(retryAt - 50);
  });

  it("does not send again a message whose send got no answer: the doubt is in its SDR", async () => {
    twilio.failNext([{ status: 0, hang: true }]);
    const before = twilio.requests.length;
    const to = randomNumber();
    const messageId = await send({ to, body: "Did this leave?" });
    const records = await waitForSdrs(server, account, messageId, has("wait_dlr"));
    expect(records.find((r) => r.status === "message_sent")!.statusDetails).toMatch(
      /^unconfirmed: no answer within 1 s; the message may have left, so it is not sent again$/,
    );
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(twilio.requests.slice(before).filter((r) => r.form.get("To") === `+${to}`)).toHaveLength(1);
  });

  it("shows on the account's dashboard and in /metrics, down while Twilio keeps failing and up again after", async () => {
    const dashboard = async () =>
      (await call(server, "GET", `/api/admin/accounts/${account.accountId}/dashboard`, { headers: account.headers }))
        .json.data;
    const seen = await waitUntil(
      "the connection up on the dashboard",
      async () => {
        const d = await dashboard();
        return d.connections[0]?.state === "up" ? d : null;
      },
      10_000,
    );
    expect(seen.connections).toEqual([expect.objectContaining({ name: "twilio-main", type: "twilio", numbers: 1 })]);
    const metricsText = await (await fetch(`${server.baseUrl}/metrics`)).text();
    const series = metricsText.split("\n").filter((l) => l.startsWith("parley_carrier_connection_up{"));
    expect(series).toEqual([
      expect.stringMatching(
        new RegExp(
          `^parley_carrier_connection_up\\{account="${account.accountId}",connection="twilio-main",type="twilio"(,process="server")?\\} 1$`,
        ),
      ),
    ]);
    twilio.failNext(
      Array.from({ length: 3 }, () => ({ status: 503, body: { code: 20503, message: "Service Unavailable" } })),
    );
    const messageId = await send({ body: "While Twilio is down" });
    const down = await waitUntil(
      "the connection down on the dashboard",
      async () => {
        const d = await dashboard();
        return d.connections[0]?.state === "down" ? d.connections[0] : null;
      },
      15_000,
      50,
    );
    expect(down.stateDetail).toMatch(/^3 sends in a row failed: 20503 HTTP 503: Service Unavailable$/);
    await waitForSdrs(server, account, messageId, has("wait_dlr"), 20_000);
    await waitUntil("the connection up again", async () => (await dashboard()).connections[0]?.state === "up", 10_000);
  });
});
