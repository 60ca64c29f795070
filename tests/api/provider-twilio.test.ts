import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../helpers/server";
import { call, createTestAccount, randomNumber, releaseFactories, type TestAccount } from "../helpers/factories";
import { startFakeTwilio, type FakeTwilio } from "../helpers/fake-twilio";
import { startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver";
import { has, statuses, waitForSdrs, waitUntil } from "../helpers/wait-for";
import { PARLEY_MEDIA, readFittedImage, readMedium, startMmsPictures, type MmsPictures } from "../helpers/mms-pictures";

// A small business on Twilio: a connection added through the admin API, a number routed to it, SMS and MMS sent with
// the v3 API, Twilio's status callbacks and inbound messages coming back signed. Twilio here is a stand-in holding
// each request to Twilio's published API; callbacks are signed with the official helper library. The pictures an MMS
// names are on a real HTTP server on loopback (fetched by Parley: MEDIA_ALLOW_PRIVATE follows WEBHOOK_ALLOW_PRIVATE).

let server: RunningServer;
let twilio: FakeTwilio;
let receiver: WebhookReceiver;
let account: TestAccount;
let connection: { id: string; name: string; statusUrl: string; inboundUrl: string };
let from: string;
let pictures: MmsPictures;

beforeAll(async () => {
  pictures = await startMmsPictures();
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
  await pictures?.stop();
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
async function sendOf(to: string, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
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
  return (res.json.data.results as { messageId: string; status: string; media: string[] }[]).find(
    (m) => m.messageId === messageId,
  );
}

/** The inbound message from `phone`, as listed. */
async function inboundFrom(phone: string) {
  const res = await call(server, "GET", `/v3/messages?accountId=${account.accountId}&from=${phone}`, {
    headers: account.headers,
  });
  return res.json.data.results as { messageType: string; body: string; media: string[] }[];
}

/** A signed inbound MMS callback from `phone` naming `media`, as Twilio posts it. */
function inboundMms(phone: string, body: string, media: { url: string; contentType: string }[]) {
  return {
    MessageSid: `MM${randomUUID().replaceAll("-", "")}`,
    AccountSid: twilio.accountSid,
    From: `+${phone}`,
    To: `+${from}`,
    Body: body,
    NumMedia: String(media.length),
    ...Object.fromEntries(
      media.flatMap((m, i) => [
        [`MediaUrl${i}`, m.url],
        [`MediaContentType${i}`, m.contentType],
      ]),
    ),
    NumSegments: "1",
    SmsStatus: "received",
  };
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

  it("sends an MMS with Parley's fitted copies of its pictures as MediaUrl fields, never the originals", async () => {
    const to = randomNumber();
    const messageId = await send({
      to,
      body: "Here is the menu",
      media: [pictures.largePngUrl, pictures.smallJpegUrl],
    });
    const sent = await sendOf(to, 60_000);
    expect(sent.sid).toMatch(/^MM/);
    expect(sent.form.get("Body")).toBe("Here is the menu");
    const urls = sent.form.getAll("MediaUrl");
    expect(urls).toHaveLength(2);
    for (const url of urls) expect(url.startsWith(`${server.baseUrl}/media/`), url).toBe(true);
    // The 4000×3000 PNG of several MB went out resized under 600 KB; the small photo as it was.
    const large = await readFittedImage(urls[0]!);
    expect(large.bytes.length).toBeLessThan(pictures.largePngSize);
    expect(large.metadata.width).toBeLessThan(4000);
    const small = await readFittedImage(urls[1]!);
    expect(small.metadata).toMatchObject({ format: "jpeg", width: 320, height: 240 });
    expect((await listed(messageId))?.media).toEqual(urls);
  }, 90_000);

  it("passes a send's validity on as ValidityPeriod, the seconds left", async () => {
    const to = randomNumber();
    await send({ to, body: "Your code is 220931", validitySeconds: 300 });
    const sent = await sendOf(to);
    const left = Number(sent.form.get("ValidityPeriod"));
    expect(left).toBeGreaterThan(280);
    expect(left).toBeLessThanOrEqual(300);
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

  it("receives an MMS reply: in the listing and the customer's webhook once, with Parley's copy of its picture", async () => {
    const phone = randomNumber();
    const photo = twilio.offerMedia(pictures.smallJpeg, "image/jpeg");
    const params = inboundMms(phone, "Here's my cat", [{ url: photo, contentType: "image/jpeg" }]);
    const answer = await twilio.callback(connection.inboundUrl, params);
    expect(answer.status).toBe(200);
    expect(await answer.text()).toContain("<Response></Response>");
    expect((await twilio.callback(connection.inboundUrl, params)).status).toBe(200);
    const event = await receiver.waitFor((r) => r.json.from === phone);
    expect(event.json).toMatchObject({ to: from, body: "Here's my cat", media: [expect.stringMatching(PARLEY_MEDIA)] });
    const listing = await inboundFrom(phone);
    expect(listing).toHaveLength(1);
    expect(listing[0]).toMatchObject({ messageType: "mms", body: "Here's my cat", media: event.json.media });
    const copy = await readMedium(listing[0]!.media[0]!);
    expect(copy.status).toBe(200);
    expect(copy.contentType).toBe("image/jpeg");
    expect(copy.bytes.equals(pictures.smallJpeg)).toBe(true);
    // Twilio was asked with the account's credentials; its CDN, on another host, was given none.
    const photoPath = new URL(photo).pathname;
    expect(twilio.mediaRequests.filter((r) => r.path === photoPath).map((r) => r.headers.authorization)).toContain(
      `Basic ${Buffer.from(`${twilio.accountSid}:${twilio.authToken}`).toString("base64")}`,
    );
    expect(twilio.cdnRequests.length).toBeGreaterThan(0);
    expect(twilio.cdnRequests.every((r) => r.headers.authorization === undefined)).toBe(true);
    // A copy, not a proxy: once Twilio forgets the medium, Parley still answers it, without asking Twilio again.
    twilio.forgetMedia();
    const asked = twilio.mediaRequests.length;
    const later = await readMedium(listing[0]!.media[0]!);
    expect(later.status).toBe(200);
    expect(later.bytes.equals(pictures.smallJpeg)).toBe(true);
    expect(twilio.mediaRequests.length).toBe(asked);
  });

  it("keeps an MMS whose picture Twilio no longer has: its text is listed, its medium answers 404", async () => {
    const phone = randomNumber();
    const params = inboundMms(phone, "Did you get it?", [{ url: twilio.missingMediaUrl(), contentType: "image/jpeg" }]);
    expect((await twilio.callback(connection.inboundUrl, params)).status).toBe(200);
    const message = await waitUntil("the message listed", async () => (await inboundFrom(phone))[0] ?? null, 10_000);
    expect(message).toMatchObject({
      messageType: "mms",
      body: "Did you get it?",
      media: [expect.stringMatching(PARLEY_MEDIA)],
    });
    const medium = await readMedium(message.media[0]!);
    expect(medium.status).toBe(404);
    expect(medium.text).toBe("Attachment unavailable.\n");
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
