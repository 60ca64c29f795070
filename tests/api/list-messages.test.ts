import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../helpers/server";
import { call, createTestAccount, releaseFactories, type ApiResponse, type TestAccount } from "../helpers/factories";
import { testProvider } from "../helpers/test-database";

// GET /v3/messages driven over HTTP against the real server. Each describe block uses accounts of its own, so
// totals and orders are exactly what that block sent.

let server: RunningServer;

beforeAll(async () => {
  server = await startServer();
});

afterAll(async () => {
  await releaseFactories();
  await server?.stop();
});

interface ListingResult {
  accountId: string;
  messageId: string;
  from: string;
  to: string;
  timestamp: string;
  messageType: string;
  direction: string;
  body: string;
  media: string[];
  numSegments: number;
  status: string;
  referenceId: string;
}

interface SendInfo {
  messageId: string;
  dateCreated: string;
  to: string;
  status: string;
  reason: string;
  numSegments: number;
}

const LISTING_TIMESTAMP = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{3} UTC$/;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function send(account: TestAccount, body: Record<string, unknown>): Promise<SendInfo[]> {
  const res = await call(server, "POST", "/v3/messages", {
    headers: account.headers,
    body: { accountId: account.accountId, from: account.numbers[0], ...body },
  });
  expect(res.status, res.text).toBe(200);
  return res.json.data.messageInfo as SendInfo[];
}

/** Sends and returns the entry at `index` of messageInfo. */
async function sendOne(account: TestAccount, body: Record<string, unknown>, index = 0): Promise<SendInfo> {
  const info = (await send(account, body))[index];
  expect(info).toBeDefined();
  return info!;
}

/** GET /v3/messages with the account's id and the given parameters (encoded as a client library would). */
async function list(account: TestAccount, params: Record<string, string> = {}): Promise<ApiResponse> {
  const query = new URLSearchParams({ accountId: account.accountId, ...params });
  return call(server, "GET", `/v3/messages?${query}`, { headers: account.headers });
}

/** GET /v3/messages with a query string written by hand (to control exactly what is on the wire). */
async function listRaw(account: TestAccount, rawQuery: string): Promise<ApiResponse> {
  return call(server, "GET", `/v3/messages?accountId=${account.accountId}&${rawQuery}`, { headers: account.headers });
}

function results(res: ApiResponse): ListingResult[] {
  expect(res.status, res.text).toBe(200);
  return res.json.data.results as ListingResult[];
}

function ids(res: ApiResponse): string[] {
  return results(res).map((r) => r.messageId);
}

/** `2026-11-21T22:52:12.123+0000` (send response) → `2026-11-21 22:52:12.123 UTC` (listing). */
function listingFormOf(dateCreated: string): string {
  const iso = new Date(dateCreated.replace(/([+-]\d{2})(\d{2})$/, "$1:$2")).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 23)} UTC`;
}

/** The instant of a listing timestamp. */
function instantOf(listingTimestamp: string): Date {
  expect(listingTimestamp).toMatch(LISTING_TIMESTAMP);
  return new Date(listingTimestamp.replace(" ", "T").replace(" UTC", "Z"));
}

/** The same instant written in ISO 8601 with another offset, e.g. `+05:30` or `-0800`. */
function isoWithOffset(date: Date, offsetMinutes: number, colon = true): string {
  const local = new Date(date.getTime() + offsetMinutes * 60_000).toISOString().slice(0, 23);
  const sign = offsetMinutes < 0 ? "-" : "+";
  const abs = Math.abs(offsetMinutes);
  const hh = String(Math.floor(abs / 60)).padStart(2, "0");
  const mm = String(abs % 60).padStart(2, "0");
  return `${local}${sign}${hh}${colon ? ":" : ""}${mm}`;
}

describe("GET /v3/messages: envelope and result fields", () => {
  let account: TestAccount;
  let accepted: SendInfo;
  let rejected: SendInfo;

  beforeAll(async () => {
    account = await createTestAccount(server);
    accepted = await sendOne(account, { to: "+14155550123", body: "Hello listing", referenceId: "order42" });
    rejected = await sendOne(account, { toArray: ["12125550199", "12"], body: "One good, one bad" }, 1);
  });

  it("answers QueryCompletedSuccessfully with total, position and the query echoed", async () => {
    const res = await list(account, { start: "1", count: "1", sortDir: "asc", messageType: "sms" });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expect(res.json).toMatchObject({
      status: "QueryCompletedSuccessfully",
      statusCode: 200,
      statusMessage: "Query Completed Successfully",
      statusUri: "",
    });
    const data = res.json.data;
    expect(data).toMatchObject({
      apiVersion: "v3",
      accountId: account.accountId,
      start: "1",
      count: "1",
      sortDir: "asc",
      messageType: "sms",
      total: 3,
      position: 1,
    });
    // Only the parameters given are echoed.
    expect(data).not.toHaveProperty("sortBy");
    expect(data).not.toHaveProperty("body");
    expect(data.results).toHaveLength(1);
  });

  it("echoes filters too, and position is 0 by default", async () => {
    const res = await list(account, { referenceId: "order42", to: "14155550123" });
    expect(res.json.data).toMatchObject({
      accountId: account.accountId,
      referenceId: "order42",
      to: "14155550123",
      total: 1,
      position: 0,
    });
  });

  it("shows an accepted send with exactly the documented fields, TNs without '+'", async () => {
    const res = await list(account, { messageId: accepted.messageId });
    const [result] = results(res);
    expect(result).toEqual({
      accountId: account.accountId,
      messageId: accepted.messageId,
      from: account.numbers[0],
      to: "14155550123",
      timestamp: listingFormOf(accepted.dateCreated),
      messageType: "sms",
      direction: "outbound",
      body: "Hello listing",
      media: [],
      numSegments: 1,
      status: "queued",
      referenceId: "order42",
    });
    expect(result!.from).not.toContain("+");
    expect(result!.timestamp).toMatch(LISTING_TIMESTAMP);
  });

  it("lists a rejected entry with status rejected", async () => {
    const [result] = results(await list(account, { messageId: rejected.messageId }));
    expect(result).toMatchObject({
      messageId: rejected.messageId,
      status: "rejected",
      direction: "outbound",
      to: "12",
      referenceId: "",
    });
  });

  it("shows an MMS with its media and one segment", async () => {
    const mms = await sendOne(account, {
      to: "14155550124",
      body: "pic",
      media: ["https://example.com/a.jpg", "https://example.com/b.png"],
    });
    const [result] = results(await list(account, { messageId: mms.messageId }));
    expect(result).toMatchObject({
      messageType: "mms",
      media: ["https://example.com/a.jpg", "https://example.com/b.png"],
      numSegments: 1,
      body: "pic",
      status: "queued",
    });
  });
});

describe("GET /v3/messages: filters", () => {
  let account: TestAccount;
  let hello: SendInfo;
  let mms: SendInfo;
  let percent: SendInfo;
  let percentLookalike: SendInfo;
  let underscore: SendInfo;
  let underscoreLookalike: SendInfo;
  let rejected: SendInfo;
  let fromSecond: SendInfo;
  let accented: SendInfo;

  beforeAll(async () => {
    account = await createTestAccount(server);
    hello = await sendOne(account, { to: "14155550101", body: "hello world", referenceId: "refHello" });
    mms = await sendOne(account, { to: "14155550102", media: ["https://example.com/x.jpg"], referenceId: "refMms" });
    percent = await sendOne(account, { to: "14155550103", body: "Save 100% today" });
    percentLookalike = await sendOne(account, { to: "14155550104", body: "Save 1000 today" });
    underscore = await sendOne(account, { to: "14155550105", body: "file a_b.txt" });
    underscoreLookalike = await sendOne(account, { to: "14155550106", body: "file axb.txt" });
    rejected = await sendOne(account, { toArray: ["14155550107", "999"], body: "partly rejected" }, 1);
    fromSecond = await sendOne(account, {
      from: account.numbers[1],
      to: "14155550101",
      body: "from the second number",
    });
    accented = await sendOne(account, { to: "14155550109", body: "Hola José, ÉTÉ 2026 😀 50% off" });
  });

  it("messageId", async () => {
    const res = await list(account, { messageId: hello.messageId });
    expect(ids(res)).toEqual([hello.messageId]);
    expect(res.json.data.total).toBe(1);
  });

  it("messageId in upper case finds the same message", async () => {
    expect(ids(await list(account, { messageId: hello.messageId.toUpperCase() }))).toEqual([hello.messageId]);
  });

  it("referenceId", async () => {
    expect(ids(await list(account, { referenceId: "refMms" }))).toEqual([mms.messageId]);
    expect(results(await list(account, { referenceId: "nothingLikeThis" }))).toEqual([]);
  });

  it("to, with '+' encoded as %2B, with a raw '+' (decoded as a space) and as plain digits", async () => {
    const expected = [fromSecond.messageId, hello.messageId];
    expect(ids(await listRaw(account, "to=%2B14155550101"))).toEqual(expected);
    expect(ids(await listRaw(account, "to=+14155550101"))).toEqual(expected);
    expect(ids(await listRaw(account, "to=14155550101"))).toEqual(expected);
  });

  it("from, in every form", async () => {
    for (const form of [`%2B${account.numbers[1]}`, `+${account.numbers[1]}`, account.numbers[1]]) {
      const res = await listRaw(account, `from=${form}`);
      expect(ids(res)).toEqual([fromSecond.messageId]);
      expect(res.json.data.total).toBe(1);
    }
    const fromFirst = results(await list(account, { from: account.numbers[0]! }));
    expect(fromFirst).toHaveLength(9);
    expect(fromFirst.every((r) => r.from === account.numbers[0])).toBe(true);
  });

  it("from and to together", async () => {
    expect(ids(await list(account, { from: account.numbers[0]!, to: "14155550101" }))).toEqual([hello.messageId]);
  });

  it("messageType", async () => {
    expect(ids(await list(account, { messageType: "mms" }))).toEqual([mms.messageId]);
    const sms = results(await list(account, { messageType: "sms" }));
    expect(sms).toHaveLength(9);
    expect(sms.every((r) => r.messageType === "sms")).toBe(true);
  });

  it("direction", async () => {
    expect(results(await list(account, { direction: "outbound" }))).toHaveLength(10);
    const inbound = await list(account, { direction: "inbound" });
    expect(results(inbound)).toEqual([]);
    expect(inbound.json.data.total).toBe(0);
  });

  it("status", async () => {
    expect(ids(await list(account, { status: "rejected" }))).toEqual([rejected.messageId]);
    const queued = results(await list(account, { status: "queued" }));
    expect(queued).toHaveLength(9);
    expect(queued.every((r) => r.status === "queued")).toBe(true);
    expect(results(await list(account, { status: "delivered" }))).toEqual([]);
  });

  it("body: a case-insensitive substring", async () => {
    expect(ids(await list(account, { body: "HELLO" }))).toEqual([hello.messageId]);
    expect(ids(await list(account, { body: "lo WoR" }))).toEqual([hello.messageId]);
    expect(ids(await list(account, { body: "SECOND NUMBER" }))).toEqual([fromSecond.messageId]);
    expect(results(await list(account, { body: "goodbye" }))).toEqual([]);
  });

  it("body: case is ignored for accented letters too", async () => {
    for (const needle of ["JOSÉ", "josé", "été", "Été", "hola josé, été"]) {
      const res = await list(account, { body: needle });
      expect(ids(res), needle).toEqual([accented.messageId]);
      expect(res.json.data.total, needle).toBe(1);
    }
    expect(results(await list(account, { body: "JOSE" }))).toEqual([]); // an accent is not a case
    expect(ids(await list(account, { body: "😀" }))).toEqual([accented.messageId]);
    expect(ids(await list(account, { body: "été 2026 😀 50%" }))).toEqual([accented.messageId]);
  });

  it("body: a capital that lowers to two characters, and a word-final capital sigma, fold one character at a time", async () => {
    // Lowered whole, "ΟΔΟΣ" ends in ς and "İ" becomes "i̇": folded character by character they are "οδοσ" and "İ".
    const own = await createTestAccount(server);
    const greek = await sendOne(own, { to: "14155550111", body: "ΟΔΟΣ ΑΘΗΝΑΣ 12" });
    const turkish = await sendOne(own, { to: "14155550112", body: "İSTANBUL TRIP" });
    // (PostgreSQL lowers both sides by its own rules, which for a word-final Σ depend on the database's locale.)
    if (testProvider() === "sqlite")
      for (const needle of ["οδοσ", "ΟΔΟΣ", "οδοσ αθηνασ"]) {
        const res = await list(own, { body: needle });
        expect(ids(res), needle).toEqual([greek.messageId]);
        expect(res.json.data.total, needle).toBe(1);
      }
    for (const needle of ["İstanbul", "İSTANBUL TRIP"])
      expect(ids(await list(own, { body: needle })), needle).toEqual([turkish.messageId]);
    if (testProvider() === "sqlite") expect(results(await list(own, { body: "οδος" }))).toEqual([]);
  });

  it("body: '%' matches itself, not any text", async () => {
    const res = await listRaw(account, "body=100%25");
    expect(ids(res)).toEqual([percent.messageId]);
    expect(ids(res)).not.toContain(percentLookalike.messageId);
    expect(res.json.data.total).toBe(1);
    expect(ids(await list(account, { body: "0%" }))).toEqual([accented.messageId, percent.messageId]);
  });

  it("body: '_' matches itself, not any character", async () => {
    const res = await list(account, { body: "A_B" });
    expect(ids(res)).toEqual([underscore.messageId]);
    expect(ids(res)).not.toContain(underscoreLookalike.messageId);
    expect(res.json.data.total).toBe(1);
  });

  it("body: a backslash is an ordinary character too", async () => {
    const slashed = await sendOne(account, { to: "14155550108", body: "path C:\\temp\\x" });
    expect(ids(await list(account, { body: "C:\\temp" }))).toEqual([slashed.messageId]);
    expect(results(await list(account, { body: "C:temp" }))).toEqual([]);
  });

  it("filters combine", async () => {
    expect(ids(await list(account, { body: "today", to: "14155550103" }))).toEqual([percent.messageId]);
    expect(results(await list(account, { body: "hello", messageType: "mms" }))).toEqual([]);
  });
});

describe("GET /v3/messages: a body filter with '_' over many messages", () => {
  let account: TestAccount;
  let matching: string[];

  beforeAll(async () => {
    account = await createTestAccount(server);
    const destinations = (n: number, prefix: string) =>
      Array.from({ length: n }, (_, i) => `${prefix}${String(i).padStart(4, "0")}`);
    matching = (await send(account, { toArray: destinations(1000, "1415555"), body: "Code A_7 inside" })).map(
      (i) => i.messageId,
    );
    // Sent later, so newest first they come before every match; "_" as a wildcard would take them too.
    await send(account, { toArray: destinations(150, "1212555"), body: "Code AX7 inside" });
  });

  it("counts and pages the literal matches only, in the listing's order", async () => {
    const last = await list(account, { body: "a_7", start: "990", count: "20" });
    expect(last.json.data.total).toBe(1000);
    expect(ids(last)).toEqual([...matching].reverse().slice(990));
    const first = await list(account, { body: "A_7", sortDir: "asc", count: "5" });
    expect(first.json.data.total).toBe(1000);
    expect(ids(first)).toEqual(matching.slice(0, 5));
    const middle = await list(account, { body: "A_7", start: "500", count: "3" });
    expect(ids(middle)).toEqual([...matching].reverse().slice(500, 503));
    expect((await list(account, { body: "code a" })).json.data.total).toBe(1150);
  });
});

describe("GET /v3/messages: timestamp filters", () => {
  let account: TestAccount;
  const sent: { id: string; at: Date; dateCreated: string }[] = [];

  beforeAll(async () => {
    account = await createTestAccount(server);
    for (const to of ["14155550201", "14155550202", "14155550203"]) {
      const info = await sendOne(account, { to, body: `at ${to}` });
      sent.push({ id: info.messageId, at: new Date(0), dateCreated: info.dateCreated });
      await sleep(5); // three distinct milliseconds
    }
    for (const result of results(await list(account))) {
      sent.find((s) => s.id === result.messageId)!.at = instantOf(result.timestamp);
    }
    expect(new Set(sent.map((s) => s.at.getTime())).size).toBe(3);
  });

  const idsOf = (...indexes: number[]) => indexes.map((i) => sent[i]!.id);
  const asc = { sortDir: "asc" };

  it("timestampBegin is inclusive and timestampEnd exclusive (listing form, as results show it)", async () => {
    const t1 = sent[1]!.at;
    const listing = `${t1.toISOString().slice(0, 10)} ${t1.toISOString().slice(11, 23)}`;
    expect(ids(await list(account, { ...asc, timestampBegin: listing }))).toEqual(idsOf(1, 2));
    expect(ids(await list(account, { ...asc, timestampEnd: listing }))).toEqual(idsOf(0));
    // A result's timestamp, copied as shown (with " UTC"), works as a filter value.
    expect(ids(await list(account, { ...asc, timestampBegin: `${listing} UTC` }))).toEqual(idsOf(1, 2));
  });

  it("begin and end together select a window", async () => {
    const begin = sent[0]!.at.toISOString();
    const end = sent[2]!.at.toISOString();
    const res = await list(account, { ...asc, timestampBegin: begin, timestampEnd: end });
    expect(ids(res)).toEqual(idsOf(0, 1));
    expect(res.json.data.total).toBe(2);
    expect(results(await list(account, { timestampBegin: end, timestampEnd: end }))).toEqual([]);
  });

  it("ISO 8601 with Z, with positive and negative offsets, with and without the colon", async () => {
    const t1 = sent[1]!.at;
    for (const value of [
      t1.toISOString(),
      isoWithOffset(t1, 330), // +05:30
      isoWithOffset(t1, -480), // -08:00
      isoWithOffset(t1, 60, false), // +0100
      isoWithOffset(t1, -300, false), // -0500
    ]) {
      expect(ids(await list(account, { ...asc, timestampBegin: value })), value).toEqual(idsOf(1, 2));
      expect(ids(await list(account, { ...asc, timestampEnd: value })), value).toEqual(idsOf(0));
    }
  });

  it("a send response's dateCreated (…+0000) works as a filter value", async () => {
    const dateCreated = sent[1]!.dateCreated;
    expect(dateCreated).toMatch(/\+0000$/);
    expect(ids(await list(account, { ...asc, timestampBegin: dateCreated }))).toEqual(idsOf(1, 2));
  });

  it("a date alone means midnight UTC of that day", async () => {
    const day = sent[0]!.at.toISOString().slice(0, 10);
    const next = new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
    expect(ids(await list(account, { ...asc, timestampBegin: day }))).toEqual(idsOf(0, 1, 2));
    expect(results(await list(account, { timestampEnd: day }))).toEqual([]);
    expect(results(await list(account, { timestampBegin: next }))).toEqual([]);
    expect(ids(await list(account, { ...asc, timestampBegin: day, timestampEnd: next }))).toEqual(idsOf(0, 1, 2));
  });

  it("large offsets (+14:00, -12:00) are read as the same instant", async () => {
    const justAfter = new Date(sent[1]!.at.getTime() + 1);
    expect(ids(await list(account, { ...asc, timestampBegin: isoWithOffset(justAfter, 14 * 60) }))).toEqual(idsOf(2));
    expect(ids(await list(account, { ...asc, timestampEnd: isoWithOffset(justAfter, -12 * 60) }))).toEqual(idsOf(0, 1));
  });
});

describe("GET /v3/messages: paging", () => {
  let account: TestAccount;
  let thirty: string[];

  beforeAll(async () => {
    account = await createTestAccount(server);
    const destinations = Array.from({ length: 30 }, (_, i) => `1415555${String(300 + i).padStart(4, "0")}`);
    const infos = await send(account, { toArray: destinations, body: "same millisecond" });
    expect(infos.every((i) => i.status === "accepted")).toBe(true);
    expect(new Set(infos.map((i) => i.dateCreated)).size).toBe(1);
    thirty = infos.map((i) => i.messageId);
  });

  it("pages of 7 cover the 30 messages of one millisecond exactly once, in both directions", async () => {
    for (const sortDir of ["desc", "asc"]) {
      const seen: string[] = [];
      for (let start = 0; start < 35; start += 7) {
        const res = await list(account, { start: String(start), count: "7", sortDir });
        expect(res.json.data.total).toBe(30);
        expect(res.json.data.position).toBe(start);
        const page = ids(res);
        expect(page).toHaveLength(Math.max(0, Math.min(7, 30 - start)));
        seen.push(...page);
      }
      expect(seen).toHaveLength(30);
      expect(new Set(seen).size).toBe(30);
      expect([...seen].sort()).toEqual([...thirty].sort());
      // The pages, put together, are the one-page listing.
      expect(seen).toEqual(ids(await list(account, { count: "30", sortDir })));
    }
  });

  it("messages of one millisecond are listed in the order they were accepted (reversed for desc)", async () => {
    expect(ids(await list(account, { sortDir: "asc" }))).toEqual(thirty);
    expect(ids(await list(account))).toEqual([...thirty].reverse());
  });

  it("total is the whole query's, whatever the page", async () => {
    for (const [start, count, length] of [
      ["0", "1", 1],
      ["29", "5", 1],
      ["30", "5", 0],
      ["1000", "1000", 0],
    ] as const) {
      const res = await list(account, { start, count });
      expect(res.json.data).toMatchObject({ total: 30, position: Number(start) });
      expect(results(res)).toHaveLength(length);
    }
  });

  it("count defaults to 50 and start to 0", async () => {
    const more = Array.from({ length: 25 }, (_, i) => `1212555${String(400 + i).padStart(4, "0")}`);
    await send(account, { toArray: more, body: "more" });
    const res = await list(account);
    expect(res.json.data.total).toBe(55);
    expect(res.json.data.position).toBe(0);
    expect(results(res)).toHaveLength(50);
    const rest = await list(account, { start: "50" });
    expect(results(rest)).toHaveLength(5);
    expect(new Set([...ids(res), ...ids(rest)]).size).toBe(55);
  });
});

describe("GET /v3/messages: sorting", () => {
  let account: TestAccount;
  // In the order they were sent.
  let chronological: { id: string; from: string; to: string; status: string; numSegments: number }[];

  beforeAll(async () => {
    account = await createTestAccount(server);
    const [a, b] = [...account.numbers].sort();
    const plan: Record<string, unknown>[] = [
      { from: b, to: "14155550503", body: "short" }, // 1 segment
      { from: a, to: "14155550501", body: "x".repeat(200) }, // 2 segments
      { from: b, to: "14155550502", body: "y".repeat(1530) }, // 10 segments: sorts after 2 as a number, not as text
      { from: a, toArray: ["14155550504", "+14155550504"], body: "dup" }, // queued + rejected, same millisecond
    ];
    chronological = [];
    for (const request of plan) {
      const infos = await send(account, request);
      for (const info of infos) {
        chronological.push({
          id: info.messageId,
          from: request.from as string,
          to: info.to.replace(/^\+/, ""),
          status: info.status === "accepted" ? "queued" : "rejected",
          numSegments: info.numSegments,
        });
      }
      await sleep(3);
    }
    expect(chronological.map((m) => m.numSegments)).toEqual([1, 2, 10, 1, 1]);
  });

  /** Expected ascending order: by the field, then by time of acceptance; descending is its exact reverse. */
  function expectedAsc(field: "from" | "to" | "status" | "numSegments"): string[] {
    return [...chronological]
      .map((m, index) => ({ ...m, index }))
      .sort((x, y) => (x[field] < y[field] ? -1 : x[field] > y[field] ? 1 : x.index - y.index))
      .map((m) => m.id);
  }

  it("defaults to timestamp, newest first", async () => {
    const res = await list(account);
    expect(ids(res)).toEqual(chronological.map((m) => m.id).reverse());
    const times = results(res).map((r) => instantOf(r.timestamp).getTime());
    expect(times).toEqual([...times].sort((x, y) => y - x));
  });

  it("sortDir asc gives oldest first; sortBy timestamp explicitly gives the same", async () => {
    expect(ids(await list(account, { sortDir: "asc" }))).toEqual(chronological.map((m) => m.id));
    expect(ids(await list(account, { sortBy: "timestamp", sortDir: "asc" }))).toEqual(chronological.map((m) => m.id));
    expect(ids(await list(account, { sortBy: "timestamp" }))).toEqual(chronological.map((m) => m.id).reverse());
  });

  it("sortDir is case-insensitive", async () => {
    expect(ids(await list(account, { sortDir: "ASC" }))).toEqual(chronological.map((m) => m.id));
  });

  for (const field of ["from", "to", "status", "numSegments"] as const) {
    it(`sortBy ${field}, ascending and descending`, async () => {
      const asc = await list(account, { sortBy: field, sortDir: "asc" });
      expect(ids(asc)).toEqual(expectedAsc(field));
      const values = results(asc).map((r) => r[field]);
      expect(values).toEqual([...values].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0)));
      expect(ids(await list(account, { sortBy: field, sortDir: "desc" }))).toEqual(expectedAsc(field).reverse());
      expect(ids(await list(account, { sortBy: field }))).toEqual(expectedAsc(field).reverse());
    });
  }

  it("sorting applies before paging", async () => {
    const firstTwo = ids(await list(account, { sortBy: "numSegments", count: "2" }));
    expect(firstTwo).toEqual(expectedAsc("numSegments").reverse().slice(0, 2));
    const res = await list(account, { sortBy: "numSegments", sortDir: "asc", start: "3", count: "2" });
    expect(ids(res)).toEqual(expectedAsc("numSegments").slice(3, 5));
  });
});

describe("GET /v3/messages: tenancy and bad requests", () => {
  let first: TestAccount;
  let second: TestAccount;
  let firstIds: string[];
  let secondIds: string[];

  beforeAll(async () => {
    first = await createTestAccount(server);
    second = await createTestAccount(server);
    firstIds = (await send(first, { toArray: ["14155550601", "14155550602", "14155550603"], body: "shared text" })).map(
      (i) => i.messageId,
    );
    secondIds = (await send(second, { toArray: ["14155550601", "14155550604"], body: "shared text" })).map(
      (i) => i.messageId,
    );
  });

  it("each account sees only its own messages, totals included", async () => {
    const a = await list(first, { count: "1000" });
    expect(a.json.data.total).toBe(3);
    expect([...ids(a)].sort()).toEqual([...firstIds].sort());
    expect(results(a).every((r) => r.accountId === first.accountId)).toBe(true);

    const b = await list(second, { count: "1000" });
    expect(b.json.data.total).toBe(2);
    expect([...ids(b)].sort()).toEqual([...secondIds].sort());
    expect(results(b).every((r) => r.accountId === second.accountId)).toBe(true);
  });

  it("filters never reach into another account", async () => {
    const byId = await list(first, { messageId: secondIds[0]! });
    expect(results(byId)).toEqual([]);
    expect(byId.json.data.total).toBe(0);
    expect(results(await list(first, { from: second.numbers[0]! }))).toEqual([]);
    expect([...ids(await list(first, { to: "14155550601", body: "SHARED" }))]).toEqual([firstIds[0]]);
  });

  it("another account's accountId is 403 Forbidden, whoever's messages exist", async () => {
    const res = await call(server, "GET", `/v3/messages?accountId=${second.accountId}`, { headers: first.headers });
    expect(res.status).toBe(403);
    expect(res.json).toMatchObject({
      status: "Forbidden",
      statusCode: 403,
      statusMessage: "Credentials do not grant access to this account",
    });
    expect(res.text).not.toContain(secondIds[0]);
    const unknown = await call(server, "GET", `/v3/messages?accountId=${crypto.randomUUID()}`, {
      headers: first.headers,
    });
    expect(unknown.status).toBe(403);
    expect(unknown.json.status).toBe("Forbidden");
  });

  it("no credentials is 401 Unauthorized", async () => {
    const res = await call(server, "GET", `/v3/messages?accountId=${first.accountId}`);
    expect(res.status).toBe(401);
    expect(res.json).toMatchObject({
      status: "Unauthorized",
      statusCode: 401,
      statusMessage: "Missing or invalid credentials",
    });
  });

  it("a missing accountId is 400 MissingAccountId", async () => {
    const res = await call(server, "GET", "/v3/messages", { headers: first.headers });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({
      status: "MissingAccountId",
      statusCode: 400,
      statusMessage: "'accountId' is required",
    });
  });

  it("a bad parameter is 400 InvalidRequest naming it", async () => {
    const cases: [string, string][] = [
      ["count", "0"],
      ["count", "1001"],
      ["count", "ten"],
      ["start", "-1"],
      ["sortBy", "body"],
      ["sortDir", "up"],
      ["messageType", "fax"],
      ["direction", "sideways"],
      ["status", "lost"],
      ["timestampBegin", "yesterday"],
      ["timestampEnd", "2026-02-30"],
      ["from", "not-a-number"],
      ["messageId", "1234"],
    ];
    const responses = await Promise.all(cases.map(([name, value]) => list(first, { [name]: value })));
    for (const [i, [name, value]] of cases.entries()) {
      const res = responses[i]!;
      expect(res.status, `${name}=${value}`).toBe(400);
      expect(res.json, `${name}=${value}`).toMatchObject({
        status: "InvalidRequest",
        statusCode: 400,
        statusMessage: "Invalid Request",
      });
      expect(res.json.data.field, `${name}=${value}`).toBe(name);
      expect(res.json.data.error_message, `${name}=${value}`).toContain(name);
    }
  });
});
