import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Webhook } from "standardwebhooks";
import { startServer, type RunningServer } from "../helpers/server";
import { call, createTestAccount, randomNumber, releaseFactories, type TestAccount } from "../helpers/factories";
import { has, statuses, waitForSdrs, type SdrRecord } from "../helpers/wait-for";
import { parley } from "../helpers/cli";
import { PARLEY_MEDIA, readMedium, startMmsPictures, type MmsPictures } from "../helpers/mms-pictures";
import {
  startWebhookReceiver,
  type Answer,
  type ReceivedRequest,
  type WebhookReceiver,
} from "../helpers/webhook-receiver";

// Webhooks end to end: the server with its worker and dispatcher, the simulator carrier, and a real HTTP receiver
// on loopback (allowed here by WEBHOOK_ALLOW_PRIVATE). Retries are seconds apart instead of minutes.
let server: RunningServer;
let account: TestAccount;
let other: TestAccount;
let receiver: WebhookReceiver;
let secret: string;
let pictures: MmsPictures;
/** What the receiver answers to events for a destination (`to`), by the number of the request for it (1, 2, …). */
const behaviour = new Map<string, (n: number) => Answer>();
const HEADER = { name: "Authorization", value: "Bearer receiver-token-123" };

beforeAll(async () => {
  pictures = await startMmsPictures();
  receiver = await startWebhookReceiver();
  receiver.respond = (request) => {
    const to = request.json.to as string;
    const rule = behaviour.get(to);
    if (!rule) return { status: 200 };
    const n = receiver.requests.filter((r) => r.json.to === to).length;
    return rule(n);
  };
  server = await startServer({
    env: {
      PARLEY_WORKER: "true",
      WORKER_POLL_MS: "50",
      SIMULATOR_RECEIPT_DELAY_MS: "100",
      MESSAGE_VALIDITY_HOURS: "0.001", // 3.6 s: the "no receipt" destination expires quickly
      WEBHOOK_ALLOW_PRIVATE: "true",
      WEBHOOK_POLL_MS: "50",
      WEBHOOK_RETRY_SECONDS: "0.5,1",
      WEBHOOK_RETRY_WINDOW_SECONDS: "6",
      WEBHOOK_TIMEOUT_SECONDS: "1",
    },
  });
  account = await createTestAccount(server, { numbers: 4, rateLimitPerSecond: 50 });
  other = await createTestAccount(server, { numbers: 1 });
  const res = await call(server, "PUT", `/api/admin/accounts/${account.accountId}/webhook`, {
    headers: account.headers,
    body: { url: receiver.url, headerName: HEADER.name, headerValue: HEADER.value },
  });
  expect(res.status).toBe(200);
  secret = await revealSecret(res.json.data.webhook.secrets[0].id);
});

/** The portal's Reveal: one signing secret in full, on request. */
async function revealSecret(secretId: string): Promise<string> {
  const path = `/api/admin/accounts/${account.accountId}/webhook/secrets/${secretId}/reveal`;
  const res = await call(server, "POST", path, { headers: account.headers });
  expect(res.status, res.text).toBe(200);
  return res.json.data.secret.secret;
}

afterAll(async () => {
  await releaseFactories();
  await server?.stop();
  await receiver?.close();
  await pictures?.stop();
});

let nextNumber = 0;
async function send(to: string, body = "Hello from Parley", extra: Record<string, unknown> = {}): Promise<string> {
  const from = account.numbers[nextNumber++ % account.numbers.length];
  const res = await call(server, "POST", "/v3/messages", {
    headers: account.headers,
    body: { accountId: account.accountId, from, to, body, ...extra },
  });
  expect(res.status).toBe(200);
  return res.json.data.messageInfo[0].messageId as string;
}

/** A destination no other test uses, ending in the simulator's outcome digits when given. */
function destination(ending?: string): string {
  const number = randomNumber();
  return ending ? number.slice(0, -4) + ending : number;
}

function verify(request: ReceivedRequest, key = secret): unknown {
  return new Webhook(key).verify(request.body, {
    "webhook-id": request.headers["webhook-id"] as string,
    "webhook-timestamp": request.headers["webhook-timestamp"] as string,
    "webhook-signature": request.headers["webhook-signature"] as string,
  });
}

const forMessage = (messageId: string) => (r: ReceivedRequest) => r.json.messageId === messageId;

async function attempts(query: string) {
  const res = await call(server, "GET", `/api/admin/accounts/${account.accountId}/webhook/attempts?${query}`, {
    headers: account.headers,
  });
  expect(res.status).toBe(200);
  return res.json.data.attempts as {
    eventId: string;
    httpStatus: number | null;
    error: string | null;
    url: string;
    latencyMs: number;
    at: string;
  }[];
}

describe("settings", () => {
  it("are shown with the header value masked, and the URL is checked", async () => {
    const res = await call(server, "GET", `/api/admin/accounts/${account.accountId}/webhook`, {
      headers: account.headers,
    });
    expect(res.status).toBe(200);
    expect(res.json.data.webhook).toMatchObject({
      url: receiver.url,
      headerName: "Authorization",
      headerValueHint: "••••••••-123",
    });
    // The secret itself is only in a Reveal's answer, never in the settings.
    const [current] = res.json.data.webhook.secrets;
    expect(res.text).not.toContain(secret);
    expect(current.secret).toBeUndefined();
    expect(current.hint).toBe(`whsec_…${secret.slice(-4)}`);
    expect(await revealSecret(current.id)).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const audit = await call(server, "GET", `/api/admin/accounts/${account.accountId}/audit?action=webhook.secret`, {
      headers: account.headers,
    });
    expect(audit.json.data.events[0]).toMatchObject({
      action: "webhook.secret_revealed",
      target: `secret ${current.id}`,
    });
    const foreign = await call(
      server,
      "POST",
      `/api/admin/accounts/${account.accountId}/webhook/secrets/${current.id}/reveal`,
      {
        headers: other.headers,
      },
    );
    expect(foreign.status).toBe(403);
    const unknown = await call(
      server,
      "POST",
      `/api/admin/accounts/${other.accountId}/webhook/secrets/${current.id}/reveal`,
      {
        headers: other.headers,
      },
    );
    expect(unknown.status).toBe(404);
    for (const url of ["ftp://example.com/x", "http://user:pw@example.com/x", "not a url"]) {
      const bad = await call(server, "PUT", `/api/admin/accounts/${account.accountId}/webhook`, {
        headers: account.headers,
        body: { url },
      });
      expect(bad.status).toBe(400);
      expect(bad.json.status).toBe("InvalidRequest");
    }
    const injected = await call(server, "PUT", `/api/admin/accounts/${account.accountId}/webhook`, {
      headers: account.headers,
      body: { url: receiver.url, headerName: "X-Token", headerValue: "a\r\nX-Evil: 1" },
    });
    expect(injected.status).toBe(400);
    // A value no HTTP client can send (beyond Latin-1) is refused when set, not at every delivery.
    const unsendable = await call(server, "PUT", `/api/admin/accounts/${account.accountId}/webhook`, {
      headers: account.headers,
      body: { url: receiver.url, headerName: "X-Token", headerValue: "tok✓" },
    });
    expect(unsendable.status).toBe(400);
    expect(JSON.stringify(unsendable.json)).toMatch(/beyond Latin-1/);
    // Headers of the connection are the HTTP client's: one as the customer header is refused, saying why.
    for (const headerName of ["Expect", "Keep-Alive", "Upgrade", "Content-Length"]) {
      const refused = await call(server, "PUT", `/api/admin/accounts/${account.accountId}/webhook`, {
        headers: account.headers,
        body: { url: receiver.url, headerName, headerValue: "x" },
      });
      expect(refused.status, headerName).toBe(400);
      expect(JSON.stringify(refused.json), headerName).toMatch(
        headerName === "Content-Length" ? /set by Parley itself/ : /a header of the connection/,
      );
    }
  });

  it("of another account are 403, and need credentials", async () => {
    for (const [method, path] of [
      ["GET", "webhook"],
      ["PUT", "webhook"],
      ["POST", "webhook/rotate-secret"],
      ["GET", "webhook/attempts"],
      ["GET", "webhook/events"],
      ["POST", "webhook/resend"],
    ] as const) {
      const res = await call(server, method, `/api/admin/accounts/${account.accountId}/${path}`, {
        headers: other.headers,
        body: method === "GET" ? undefined : { url: "http://127.0.0.1:1/" },
      });
      expect(res.status, `${method} ${path}`).toBe(403);
      const anonymous = await call(server, method, `/api/admin/accounts/${account.accountId}/${path}`);
      expect(anonymous.status, `${method} ${path} without credentials`).toBe(401);
    }
  });

  it("can be set through the CLI; the operator's environment decides whether loopback is allowed", async () => {
    const url = `${receiver.url}?from=cli`;
    const args = [
      "webhook",
      "set",
      "--account",
      other.accountId,
      "--url",
      url,
      "--header",
      "X-Api-Key: k1-secret-value",
    ];
    const refused = await parley(args, server.database.url).then(
      () => "",
      (e: { stderr: string; code: number }) => `${e.code} ${e.stderr}`,
    );
    expect(refused).toMatch(/^1 parley: the webhook URL is refused: 127\.0\.0\.1 is a loopback address/);
    process.env.WEBHOOK_ALLOW_PRIVATE = "true";
    let set: { stdout: string };
    try {
      set = await parley([...args, "--json"], server.database.url);
    } finally {
      delete process.env.WEBHOOK_ALLOW_PRIVATE;
    }
    expect(JSON.parse(set.stdout).webhook).toMatchObject({
      url,
      headerName: "X-Api-Key",
      headerValueHint: "••••••••alue",
    });
    const rotated = await parley(
      ["webhook", "rotate-secret", "--account", other.accountId, "--json"],
      server.database.url,
    );
    const { secret: current, webhook } = JSON.parse(rotated.stdout);
    expect(current).toMatch(/^whsec_/);
    expect(webhook.secrets.map((s: { secret: string }) => s.secret)).toEqual([
      current,
      JSON.parse(set.stdout).webhook.secrets[0].secret,
    ]);
  });

  it("can be removed: the account's settings show no URL", async () => {
    const removed = await call(server, "DELETE", `/api/admin/accounts/${other.accountId}/webhook`, {
      headers: other.headers,
    });
    expect(removed.status).toBe(200);
    expect(removed.json.data.webhook.url).toBeNull();
    const shown = await call(server, "GET", `/api/admin/accounts/${other.accountId}/webhook`, {
      headers: other.headers,
    });
    expect(shown.json.data.webhook).toMatchObject({ url: null, headerName: null });
  });
});

describe("delivery-status events", () => {
  it("carry the seed's fields, the configured header and a valid signature; the SDRs end with status_sent", async () => {
    const to = destination();
    const messageId = await send(to, "Hello from Parley", { referenceId: "order123" });
    const request = await receiver.waitFor(forMessage(messageId));
    expect(request.method).toBe("POST");
    expect(request.path).toBe("/hooks/parley");
    expect(request.headers["content-type"]).toBe("application/json");
    expect(request.headers.authorization).toBe(HEADER.value);
    expect(request.headers["parley-event"]).toBe("message-status");
    expect(verify(request)).toEqual(request.json);
    expect(Object.keys(request.json).sort()).toEqual(
      [
        "apiVersion",
        "messageId",
        "referenceId",
        "timestamp",
        "segmentNumber",
        "from",
        "to",
        "accountId",
        "status",
        "statusMsg",
        "numSegments",
        "bulk",
      ].sort(),
    );
    expect(request.json).toMatchObject({
      apiVersion: "v3",
      messageId,
      referenceId: "order123",
      segmentNumber: 1,
      from: account.numbers[(nextNumber - 1) % account.numbers.length],
      to,
      accountId: account.accountId,
      status: "delivered",
      numSegments: 1,
      bulk: false,
    });
    expect(request.json.to).not.toMatch(/^\+/);
    expect(new Date(request.json.timestamp).toISOString()).toBe(request.json.timestamp);
    // A delivery note followed by a carrier code, without the message text the receipt echoes.
    expect(request.json.statusMsg).toMatch(
      /^id:sim-\S+ sub:001 dlvrd:001 submit date:\d{10} done date:\d{10} stat:DELIVRD err:000$/,
    );
    const records = await waitForSdrs(server, account, messageId, has("status_sent"));
    expect(statuses(records).slice(-3)).toEqual(["delivered", "dlr_received", "status_sent"]);
    expect(records.at(-1)!.segmentNumber).toBe(1);
  });

  it("come one per segment, in order, and for every outcome (undelivered, rejected at submit, expired)", async () => {
    const long = "x".repeat(300); // 2 GSM7 segments
    const twoParts = await send(destination(), long);
    const undelivered = await send(destination("0000"));
    const rejected = await send(destination("0004"));
    const expired = await send(destination("0002"));
    const parts = [
      await receiver.waitFor((r) => r.json.messageId === twoParts && r.json.segmentNumber === 2),
      await receiver.waitFor((r) => r.json.messageId === twoParts && r.json.segmentNumber === 1),
    ];
    expect(parts.map((p) => p.json.numSegments)).toEqual([2, 2]);
    expect(receiver.requests.indexOf(parts[1]!)).toBeLessThan(receiver.requests.indexOf(parts[0]!));
    expect((await receiver.waitFor(forMessage(undelivered))).json).toMatchObject({
      status: "undelivered",
      statusMsg: expect.stringMatching(/ stat:UNDELIV err:001$/),
    });
    expect((await receiver.waitFor(forMessage(rejected))).json).toMatchObject({
      status: "rejected",
      statusMsg: "stat:REJECTD ESME_RINVDSTADR (simulated) err:0x0000000B",
    });
    expect((await receiver.waitFor(forMessage(expired), 15_000)).json).toMatchObject({
      status: "expired",
      statusMsg: "stat:EXPIRED no delivery receipt within the validity period err:000",
    });
    const records = await waitForSdrs(
      server,
      account,
      twoParts,
      (r) => r.filter((s) => s.status === "status_sent").length === 2,
    );
    expect(
      records
        .filter((r: SdrRecord) => r.status === "status_sent")
        .map((r) => r.segmentNumber)
        .sort(),
    ).toEqual([1, 2]);
  });
});

describe("inbound events", () => {
  it("are posted for a message from a phone, with the seed's fields", async () => {
    const phone = destination();
    const { stdout } = await parley(
      [
        "inbound",
        "--from",
        `+${phone}`,
        "--to",
        `+${account.numbers[0]}`,
        "--body",
        "Hi there",
        "--media",
        pictures.smallJpegUrl,
        "--json",
      ],
      server.database.url,
      // The CLI names Parley's copy at the server's address, and may fetch the picture from loopback itself.
      { PUBLIC_URL: server.baseUrl, MEDIA_ALLOW_PRIVATE: "true" },
    );
    const { messageId } = JSON.parse(stdout) as { messageId: string };
    const request = await receiver.waitFor(forMessage(messageId));
    expect(request.headers["parley-event"]).toBe("message-received");
    expect(request.headers.authorization).toBe(HEADER.value);
    expect(verify(request)).toEqual(request.json);
    expect(request.json).toEqual({
      apiVersion: "v3",
      messageId,
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      from: phone,
      to: account.numbers[0],
      accountId: account.accountId,
      body: "Hi there",
      media: [expect.stringMatching(PARLEY_MEDIA)],
      messageType: "mms",
      numSegments: 1,
    });
    // The receiver fetches the picture from Parley, which fetched it from where the phone's MMS centre had it.
    const picture = await readMedium(request.json.media[0]);
    expect(picture.status, picture.text.slice(0, 200)).toBe(200);
    expect(picture.bytes.equals(pictures.smallJpeg)).toBe(true);
  });
});

describe("retries", () => {
  it("a 500 is retried and the next 200 is accepted; every attempt is in the log", async () => {
    const to = destination();
    behaviour.set(to, (n) => (n === 1 ? { status: 500 } : { status: 200 }));
    const messageId = await send(to);
    await waitForSdrs(server, account, messageId, has("status_sent"));
    const tries = receiver.requests.filter(forMessage(messageId));
    expect(tries).toHaveLength(2);
    expect(tries[1]!.headers["webhook-id"]).toBe(tries[0]!.headers["webhook-id"]);
    const log = await attempts(`eventId=${tries[0]!.headers["webhook-id"]}`);
    expect(log.map((a) => a.httpStatus)).toEqual([200, 500]);
    expect(log[1]!.error).toMatch(/^HTTP 500/);
    expect(log[0]).toMatchObject({ url: receiver.url, error: null });
    expect(log[0]!.latencyMs).toBeGreaterThanOrEqual(0);
  });

  it("Retry-After is honoured", async () => {
    const to = destination();
    behaviour.set(to, (n) => (n === 1 ? { status: 503, headers: { "retry-after": "2" } } : { status: 200 }));
    const messageId = await send(to);
    await waitForSdrs(server, account, messageId, has("status_sent"));
    const [first, second] = receiver.requests.filter(forMessage(messageId));
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(1900);
  });

  it("a receiver slower than the timeout is tried again", async () => {
    const to = destination();
    behaviour.set(to, (n) => (n === 1 ? { status: 200, delayMs: 1500 } : { status: 200 }));
    const messageId = await send(to);
    await waitForSdrs(server, account, messageId, has("status_sent"));
    const log = await attempts(`messageId=${messageId}`);
    expect(log.map((a) => a.error)).toEqual([null, "no answer within 1 s"]);
    expect(log[1]!.httpStatus).toBeNull();
  });

  it("a receiver that is down for a while gets everything once it is up, in order per message", async () => {
    await receiver.down();
    const sent: [string, number][] = [
      [await send(destination(), "y".repeat(300)), 2],
      [await send(destination(), "z".repeat(300)), 2],
      [await send(destination()), 1],
    ];
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const failedWhileDown = await attempts("outcome=failed&limit=50");
    expect(failedWhileDown.some((a) => a.httpStatus === null && /ECONNREFUSED/.test(a.error ?? ""))).toBe(true);
    await receiver.up();
    for (const [messageId, numSegments] of sent) {
      await waitForSdrs(
        server,
        account,
        messageId,
        (r) => r.filter((s) => s.status === "status_sent").length === numSegments,
        15_000,
      );
      const segments = receiver.requests.filter(forMessage(messageId)).map((r) => r.json.segmentNumber as number);
      // Each segment arrived, and segment 2's event never went out before segment 1's was accepted.
      expect(new Set(segments)).toEqual(new Set(numSegments === 2 ? [1, 2] : [1]));
      expect(segments).toEqual([...segments].sort());
    }
  });

  it("gives up after the window with status_failed, and a resend of the range delivers it", async () => {
    const to = destination();
    let failing = true;
    behaviour.set(to, () => ({ status: failing ? 500 : 200 }));
    const since = new Date(Date.now() - 1000).toISOString();
    const messageId = await send(to);
    const records = await waitForSdrs(server, account, messageId, has("status_failed"), 20_000);
    expect(records.at(-1)!.status).toBe("status_failed");
    const events = await call(
      server,
      "GET",
      `/api/admin/accounts/${account.accountId}/webhook/events?status=failed&messageId=${messageId}`,
      {
        headers: account.headers,
      },
    );
    expect(events.json.data.events).toHaveLength(1);
    expect(events.json.data.events[0]).toMatchObject({ status: "failed", kind: "message-status", messageId });
    failing = false;
    const resend = await call(server, "POST", `/api/admin/accounts/${account.accountId}/webhook/resend`, {
      headers: account.headers,
      body: { since, until: new Date(Date.now() + 1000).toISOString() },
    });
    expect(resend.status).toBe(200);
    expect(resend.json.data.resent).toBeGreaterThanOrEqual(1);
    await waitForSdrs(server, account, messageId, has("status_sent"));
    // One event can also be resent by id, delivered or not.
    const eventId = events.json.data.events[0].id as string;
    const before = receiver.requests.filter(forMessage(messageId)).length;
    const one = await call(server, "POST", `/api/admin/accounts/${account.accountId}/webhook/resend`, {
      headers: account.headers,
      body: { eventId },
    });
    expect(one.json.data.resent).toBe(1);
    await receiver.waitFor(
      (r) => r.json.messageId === messageId && receiver.requests.filter(forMessage(messageId)).length > before,
    );
    const missing = await call(server, "POST", `/api/admin/accounts/${account.accountId}/webhook/resend`, {
      headers: account.headers,
      body: { eventId: "00000000-0000-0000-0000-000000000000" },
    });
    expect(missing.status).toBe(404);
  });
});

describe("secret rotation", () => {
  it("signs with both secrets during the overlap", async () => {
    const old = secret;
    const rotated = await call(server, "POST", `/api/admin/accounts/${account.accountId}/webhook/rotate-secret`, {
      headers: account.headers,
    });
    expect(rotated.status).toBe(200);
    const secrets = rotated.json.data.webhook.secrets as { id: string; expiresAt: string | null }[];
    expect(secrets).toHaveLength(2);
    expect(secrets[0]!.expiresAt).toBeNull();
    expect(await revealSecret(secrets[1]!.id)).toBe(old);
    expect(Date.parse(secrets[1]!.expiresAt!) - Date.now()).toBeGreaterThan(23 * 3600_000);
    secret = await revealSecret(secrets[0]!.id);
    // The dispatcher reads secrets again within a few seconds.
    await new Promise((resolve) => setTimeout(resolve, 2100));
    const messageId = await send(destination());
    const request = await receiver.waitFor(forMessage(messageId));
    expect((request.headers["webhook-signature"] as string).split(" ")).toHaveLength(2);
    expect(verify(request, secret)).toEqual(request.json);
    expect(verify(request, old)).toEqual(request.json);
  });
});

describe("failover", () => {
  it("an event the URL does not accept goes to the failover URL at once; both attempts are logged with their URL", async () => {
    const backup = await startWebhookReceiver();
    try {
      const set = await call(server, "PUT", `/api/admin/accounts/${account.accountId}/webhook`, {
        headers: account.headers,
        body: { url: receiver.url, failoverUrl: backup.url, headerName: HEADER.name, headerValue: HEADER.value },
      });
      expect(set.status, set.text).toBe(200);
      expect(set.json.data.webhook).toMatchObject({ url: receiver.url, failoverUrl: backup.url });
      const same = await call(server, "PUT", `/api/admin/accounts/${account.accountId}/webhook`, {
        headers: account.headers,
        body: { url: receiver.url, failoverUrl: receiver.url },
      });
      expect(same.status).toBe(400);
      expect(same.json.data).toMatchObject({ field: "failoverUrl" });
      // The dispatcher reads the settings again within a few seconds.
      await new Promise((resolve) => setTimeout(resolve, 2100));

      const to = destination();
      behaviour.set(to, () => ({ status: 503 }));
      const messageId = await send(to);
      const delivered = await backup.waitFor(forMessage(messageId));
      expect(verify(delivered)).toEqual(delivered.json);
      expect(delivered.headers[HEADER.name.toLowerCase()]).toBe(HEADER.value);
      await waitForSdrs(server, account, messageId, has("status_sent"));
      const eventId = delivered.headers["webhook-id"] as string;
      const log = await attempts(`eventId=${eventId}`);
      // Newest first: the failover's 200 right after the URL's 503, and no retry later.
      expect(log.map((a) => [a.url, a.httpStatus])).toEqual([
        [backup.url, 200],
        [receiver.url, 503],
      ]);
      expect(receiver.requests.filter(forMessage(messageId))).toHaveLength(1);
    } finally {
      await call(server, "PUT", `/api/admin/accounts/${account.accountId}/webhook`, {
        headers: account.headers,
        body: { url: receiver.url, headerName: HEADER.name, headerValue: HEADER.value },
      });
      await backup.close();
    }
  });
});
