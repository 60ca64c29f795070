import { randomInt } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../helpers/server";
import { call, createTestAccount, releaseFactories, type TestAccount } from "../helpers/factories";
import { has, waitForSdrs } from "../helpers/wait-for";
import { parley } from "../helpers/cli";
import { portalCookie } from "../helpers/portal-session";
import { createUser } from "../../lib/accounts/manage-accounts";

// Opt in/out end to end: phones text keywords through the carrier's inbound path (the CLI `inbound` command, as the
// simulator would), the automatic replies leave through the worker and the simulator carrier, and sends honour
// the opt state with the documented rejection, optStatus and footers.

let server: RunningServer;
let acme: TestAccount;
let other: TestAccount;

beforeAll(async () => {
  server = await startServer({
    env: { PARLEY_WORKER: "true", WORKER_POLL_MS: "50", SIMULATOR_RECEIPT_DELAY_MS: "100" },
  });
  acme = await createTestAccount(server, { name: "Acme", numbers: 1, rateLimitPerSecond: 50 });
  other = await createTestAccount(server, { name: "Globex", numbers: 1, rateLimitPerSecond: 50 });
});

afterAll(async () => {
  await releaseFactories();
  await server?.stop();
});

/** A phone the simulator delivers to (its outcomes hang on the last four digits 0000–0004). */
function phone(): string {
  return `1415${randomInt(200, 999)}${randomInt(1000, 9999)}`;
}

interface Received {
  messageId: string;
  opt: { kind: string | null; replyMessageId: string | null; flagged: boolean };
}

async function text(from: string, to: string, body: string): Promise<Received> {
  const { stdout } = await parley(
    ["inbound", "--from", from, "--to", to, "--body", body, "--json"],
    server.database.url,
  );
  return JSON.parse(stdout) as Received;
}

interface Entry {
  messageId: string;
  to: string;
  body: string;
  numSegments: number;
  optStatus: string;
  status: string;
  reason: string;
}

async function send(account: TestAccount, to: string, fields: Record<string, unknown> = {}): Promise<Entry> {
  const res = await call(server, "POST", "/v3/messages", {
    headers: account.headers,
    body: { accountId: account.accountId, from: account.numbers[0], to, body: "Your order has shipped", ...fields },
  });
  expect(res.status, res.text).toBe(200);
  return res.json.data.messageInfo[0] as Entry;
}

async function listed(account: TestAccount, messageId: string) {
  const res = await call(server, "GET", `/v3/messages?accountId=${account.accountId}&messageId=${messageId}`, {
    headers: account.headers,
  });
  return res.json.data.results[0] as Record<string, unknown>;
}

const admin = (account: TestAccount, path: string) => `/api/admin/accounts/${account.accountId}/opt/${path}`;

describe("keywords from a phone", () => {
  it("STOP opts the phone out with a reply; sends are then rejected OptedOut until START opts it back in", async () => {
    const mobile = phone();
    const stop = await text(mobile, acme.numbers[0]!, " Stop! ");
    expect(stop.opt.kind).toBe("out");

    // The confirmation leaves through the carrier even though the phone has just opted out.
    const reply = stop.opt.replyMessageId!;
    await waitForSdrs(server, acme, reply, has("dlr_received"));
    expect(await listed(acme, reply)).toMatchObject({
      direction: "outbound",
      from: acme.numbers[0],
      to: mobile,
      status: "delivered",
      body: "Acme: you are unsubscribed and will receive no more messages. Reply START to resubscribe.",
    });

    const refused = await send(acme, mobile, { optLogic: true });
    expect(refused).toMatchObject({ status: "rejected", reason: "OptedOut", optStatus: "out" });
    const sdrs = await call(server, "GET", `/v3/sdrs/${acme.accountId}/${refused.messageId}`, {
      headers: acme.headers,
    });
    expect(sdrs.json.data.results).toMatchObject([{ status: "rejected", statusDetails: "OptedOut" }]);
    expect(await listed(acme, refused.messageId)).toMatchObject({ status: "rejected" });

    // Honoured whatever optLogic says; optStatus is "" without optLogic.
    expect(await send(acme, mobile)).toMatchObject({ status: "rejected", reason: "OptedOut", optStatus: "" });

    // In a group send only the opted-out entry is refused.
    const group = await call(server, "POST", "/v3/messages", {
      headers: acme.headers,
      body: { accountId: acme.accountId, from: acme.numbers[0], toArray: [phone(), mobile], body: "Sale today" },
    });
    expect(group.json.data.messageInfo.map((e: Entry) => [e.status, e.reason])).toEqual([
      ["accepted", ""],
      ["rejected", "OptedOut"],
    ]);

    const start = await text(mobile, acme.numbers[0]!, "start");
    expect(start.opt.kind).toBe("in");
    await waitForSdrs(server, acme, start.opt.replyMessageId!, has("dlr_received"));
    expect((await listed(acme, start.opt.replyMessageId!)).body).toBe(
      "Acme: you are subscribed again. Reply HELP for help, STOP to unsubscribe.",
    );
    const allowed = await send(acme, mobile, { optLogic: true });
    expect(allowed).toMatchObject({ status: "accepted", reason: "", optStatus: "in" });
    await waitForSdrs(server, acme, allowed.messageId, has("dlr_received"));

    // Every step is in the audit trail, newest first, with the inbound message that carried the keyword.
    const trail = await call(server, "GET", admin(acme, `events?number=${mobile}`), { headers: acme.headers });
    expect(trail.status, trail.text).toBe(200);
    expect(trail.json.data.events).toMatchObject([
      { number: mobile, action: "in", source: "keyword", keyword: "START", messageId: start.messageId },
      { number: mobile, action: "out", source: "keyword", keyword: "STOP", messageId: stop.messageId },
    ]);
  });

  it("STOP also refuses what is still waiting in the queue for that phone", async () => {
    // One segment every 20 s leaves this account: the second message waits in the queue long enough.
    const slow = await createTestAccount(server, { name: "Slow", numbers: 1, rateLimitPerSecond: 0.05 });
    const mobile = phone();
    await send(slow, phone(), { body: "first in line" });
    const waiting = await send(slow, mobile, { body: "still queued", referenceId: "waiting1" });
    expect(waiting.status).toBe("accepted");
    const stop = await text(mobile, slow.numbers[0]!, "STOP");
    expect(stop.opt.kind).toBe("out");
    expect(await listed(slow, waiting.messageId)).toMatchObject({ status: "rejected" });
    const sdrs = await call(server, "GET", `/v3/sdrs/${slow.accountId}/${waiting.messageId}`, {
      headers: slow.headers,
    });
    expect(sdrs.json.data.results).toMatchObject([
      { status: "accepted" },
      { status: "queued" },
      { status: "rejected", statusDetails: "OptedOut", referenceId: "waiting1" },
    ]);
    // The confirmation itself is queued, not refused.
    expect(await listed(slow, stop.opt.replyMessageId!)).toMatchObject({ status: "queued", to: mobile });
  });

  it("HELP answers with the help text and changes nothing", async () => {
    const mobile = phone();
    const help = await text(mobile, acme.numbers[0]!, "help");
    expect(help.opt.kind).toBe("help");
    await waitForSdrs(server, acme, help.opt.replyMessageId!, has("dlr_received"));
    expect((await listed(acme, help.opt.replyMessageId!)).body).toBe(
      "Acme: reply STOP to unsubscribe, START to resubscribe. Msg & data rates may apply.",
    );
    expect(await send(acme, mobile, { optLogic: true })).toMatchObject({ status: "accepted", optStatus: "notIn" });
  });

  it("a sentence that mentions stopping is not a keyword, but is flagged for staff", async () => {
    const mobile = phone();
    const sentence = await text(mobile, acme.numbers[0]!, "please stop texting me");
    expect(sentence.opt).toEqual({ kind: null, replyMessageId: null, flagged: true });
    expect(await send(acme, mobile)).toMatchObject({ status: "accepted" });
    const flags = await call(server, "GET", admin(acme, "flags"), { headers: acme.headers });
    expect(flags.json.data.flags).toContainEqual(
      expect.objectContaining({ messageId: sentence.messageId, number: mobile, body: "please stop texting me" }),
    );
  });

  it("another account's opt-out does not leak", async () => {
    const mobile = phone();
    await text(mobile, acme.numbers[0]!, "STOP");
    expect(await send(acme, mobile)).toMatchObject({ status: "rejected", reason: "OptedOut" });
    expect(await send(other, mobile, { optLogic: true })).toMatchObject({ status: "accepted", optStatus: "notIn" });
    const trail = await call(server, "GET", admin(other, `events?number=${mobile}`), { headers: other.headers });
    expect(trail.json.data.events).toEqual([]);
  });
});

describe("footers with optLogic", () => {
  it("go with the first message to a destination and not the next; the text as sent is what is listed", async () => {
    const mobile = phone();
    const first = await send(acme, mobile, { optLogic: true, body: "Hello" });
    expect(first).toMatchObject({ status: "accepted", body: "Hello\nReply STOP to opt out", numSegments: 1 });
    await waitForSdrs(server, acme, first.messageId, has("dlr_received"));
    expect(await listed(acme, first.messageId)).toMatchObject({
      body: "Hello\nReply STOP to opt out",
      numSegments: 1,
      status: "delivered",
    });
    const second = await send(acme, mobile, { optLogic: true, body: "Hello again" });
    expect(second).toMatchObject({ body: "Hello again", numSegments: 1 });

    // Without optLogic no footer, even to a new destination.
    expect(await send(acme, phone(), { body: "Plain" })).toMatchObject({ body: "Plain", optStatus: "" });
  });

  it("are counted into the segments: a second segment, or another alphabet", async () => {
    const long = "x".repeat(150); // 150 + newline + 21 = 172 GSM7 characters: two parts
    const two = await send(acme, phone(), { optLogic: true, body: long });
    expect(two).toMatchObject({ body: `${long}\nReply STOP to opt out`, numSegments: 2 });
    await waitForSdrs(server, acme, two.messageId, (r) => r.filter((s) => s.status === "dlr_received").length === 2);

    // Another account's own footer in Cyrillic turns a 60-character GSM7 text into UCS-2 (70 a segment): two parts.
    const put = await call(server, "PUT", admin(other, "settings"), {
      headers: other.headers,
      body: { footer: "Ответьте STOP" },
    });
    expect(put.status, put.text).toBe(200);
    expect(put.json.data.settings).toMatchObject({ footer: "Ответьте STOP", custom: { footer: true } });
    const body = "y".repeat(60);
    const ucs2 = await send(other, phone(), { optLogic: true, body });
    expect(ucs2).toMatchObject({ body: `${body}\nОтветьте STOP`, numSegments: 2 });
    expect(await send(other, phone(), { body })).toMatchObject({ numSegments: 1 });
  });
});

describe("admin API and CLI", () => {
  it("an admin opts a number out and in, recorded with who did it; the trail exports as CSV", async () => {
    const mobile = phone();
    const out = await call(server, "POST", admin(acme, "numbers"), {
      headers: acme.headers,
      body: { number: `+${mobile}`, action: "out", note: "asked by e-mail" },
    });
    expect(out.status, out.text).toBe(200);
    expect(out.json.data.event).toMatchObject({
      number: mobile,
      action: "out",
      source: "admin",
      note: "asked by e-mail",
    });
    expect(out.json.data.event.actor).toMatch(/^apiKey:/);
    expect(await send(acme, mobile)).toMatchObject({ status: "rejected", reason: "OptedOut" });

    const listedOut = await call(server, "GET", admin(acme, "numbers?status=out"), { headers: acme.headers });
    expect(listedOut.json.data.numbers).toContainEqual(expect.objectContaining({ number: mobile, status: "out" }));

    await parley(
      ["opt", "in", "--account", acme.accountId, "--number", `+${mobile}`, "--note", "signed form"],
      server.database.url,
    );
    expect(await send(acme, mobile, { optLogic: true })).toMatchObject({ status: "accepted", optStatus: "in" });

    const csv = await fetch(`${server.baseUrl}${admin(acme, `events?format=csv&number=${mobile}`)}`, {
      headers: { apikey: acme.apiKey },
    });
    expect(csv.status).toBe(200);
    expect(csv.headers.get("content-type")).toMatch(/^text\/csv/);
    const lines = (await csv.text()).trimEnd().split("\r\n");
    expect(lines[0]).toBe("createdAt,number,action,source,keyword,messageId,actor,note,accountId,id");
    expect(lines.slice(1).map((l) => l.split(",").slice(1, 4).concat(l.split(",")[6]!, l.split(",")[7]!))).toEqual([
      [mobile, "out", "admin", out.json.data.event.actor, "asked by e-mail"],
      [mobile, "in", "admin", "cli", "signed form"],
    ]);

    const exported = await parley(
      ["opt", "export", "--account", acme.accountId, "--number", mobile],
      server.database.url,
    );
    expect(exported.stdout.trimEnd().split("\r\n")).toHaveLength(3);
  });

  it("records a portal admin by e-mail", async () => {
    const email = `admin-${acme.accountId}@example.com`;
    await createUser({ accountId: acme.accountId, email, password: "correct horse battery", role: "admin" });
    const cookie = await portalCookie(server, email, "correct horse battery");
    const mobile = phone();
    const res = await call(server, "POST", admin(acme, "numbers"), {
      headers: { cookie, "content-type": "application/json" },
      body: { number: mobile, action: "out" },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.json.data.event).toMatchObject({
      number: mobile,
      action: "out",
      source: "admin",
      actor: `user:${email}`,
    });
    const elsewhere = await call(server, "GET", admin(other, "events"), { headers: { cookie } });
    expect(elsewhere.status).toBe(403);
  });

  it("refuses another account's id, and bad input", async () => {
    for (const path of ["events", "settings", "numbers", "flags", "events?format=csv"]) {
      const res = await call(server, "GET", admin(other, path), { headers: acme.headers });
      expect(res.status, path).toBe(403);
    }
    const post = await call(server, "POST", admin(other, "numbers"), {
      headers: acme.headers,
      body: { number: phone(), action: "out" },
    });
    expect(post.status).toBe(403);
    const badNumber = await call(server, "POST", admin(acme, "numbers"), {
      headers: acme.headers,
      body: { number: "123", action: "out" },
    });
    expect(badNumber.status).toBe(400);
    const badField = await call(server, "PUT", admin(acme, "settings"), {
      headers: acme.headers,
      body: { footr: "x" },
    });
    expect(badField.status).toBe(400);
    expect(badField.json.data.error_message).toMatch(/footr/);
    const badDate = await call(server, "GET", admin(acme, "events?since=yesterday"), { headers: acme.headers });
    expect(badDate.status).toBe(400);
  });
});
