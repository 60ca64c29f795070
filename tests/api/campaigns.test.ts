import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../helpers/server";
import { call, createTestAccount, randomNumber, releaseFactories, type TestAccount } from "../helpers/factories";
import { parley } from "../helpers/cli";
import { waitUntil } from "../helpers/wait-for";

// Campaigns end to end: contacts with a tag, some opted out; the campaign through /v3/campaigns and the admin API;
// the worker sending its messages as bulk through the simulator; its counts as they move; pause, resume, cancel.
let server: RunningServer;
let account: TestAccount;
let other: TestAccount;

interface Campaign {
  id: string;
  name: string;
  status: string;
  recipients: number;
  done: number;
  sendAt: string | null;
  counts: Record<string, number>;
}

beforeAll(async () => {
  server = await startServer({
    env: { PARLEY_WORKER: "true", WORKER_POLL_MS: "50", SIMULATOR_RECEIPT_DELAY_MS: "100" },
  });
  account = await createTestAccount(server, { numbers: 4, rateLimitPerSecond: 50 });
  other = await createTestAccount(server, { numbers: 1 });
  // The bulk window always open (equal times): the test may run at any hour in the phones' zones.
  const settings = await call(server, "PUT", `/api/admin/accounts/${account.accountId}`, {
    headers: account.headers,
    body: { bulkWindowStart: "00:00", bulkWindowEnd: "00:00" },
  });
  expect(settings.status, settings.text).toBe(200);
});

afterAll(async () => {
  await releaseFactories();
  await server?.stop();
});

const admin = (path: string) => `/api/admin/accounts/${account.accountId}${path}`;

async function create(body: Record<string, unknown>, who = account) {
  return call(server, "POST", "/v3/campaigns", {
    headers: who.headers,
    body: { accountId: account.accountId, fromNumbers: account.numbers.slice(0, 3), ...body },
  });
}

async function campaign(id: string): Promise<Campaign> {
  const res = await call(server, "GET", `/v3/campaigns/${id}`, { headers: account.headers });
  expect(res.status, res.text).toBe(200);
  return res.json.data.campaign;
}

async function act(id: string, action: string): Promise<Campaign> {
  const res = await call(server, "POST", `/v3/campaigns/${id}/${action}`, { headers: account.headers });
  expect(res.status, res.text).toBe(200);
  return res.json.data.campaign;
}

describe("a campaign to contacts by tag", () => {
  const phones = Array.from({ length: 12 }, () => randomNumber());

  it("sends one text a contact, as bulk from its numbers in turn, leaves out the opted-out, and counts it all", async () => {
    for (const [i, phone] of phones.entries()) {
      const res = await call(server, "PUT", admin(`/contacts/${phone}`), {
        headers: account.headers,
        body: { name: i === 0 ? "Ana Lopez" : `Guest ${i}`, tags: i % 5 === 4 ? ["other"] : ["vip", "spring"] },
      });
      expect(res.status, res.text).toBe(200);
    }
    const tagged = phones.filter((_, i) => i % 5 !== 4);
    for (const phone of tagged.slice(-2)) {
      const opt = await call(server, "POST", admin("/opt/numbers"), {
        headers: account.headers,
        body: { number: phone, action: "out" },
      });
      expect(opt.status, opt.text).toBe(200);
    }

    const res = await create({
      name: "Spring sale",
      body: "Hi {{contact.first_name}}, the spring sale starts today.",
      audience: { tag: "VIP" },
    });
    expect(res.status, res.text).toBe(200);
    const created = res.json.data.campaign as Campaign;
    expect(created).toMatchObject({ name: "Spring sale", recipients: tagged.length });
    expect(created.counts.optedOut).toBe(2);

    const finished = await waitUntil(
      "the campaign to finish",
      async () => {
        const c = await campaign(created.id);
        return c.status === "finished" ? c : null;
      },
      30_000,
      250,
    );
    expect(finished.counts).toMatchObject({ delivered: tagged.length - 2, optedOut: 2, queued: 0, failed: 0 });
    expect(finished.done).toBe(tagged.length);

    // The messages: one a phone, the first name filled in, spread over the three numbers, bulk.
    const listing = await call(
      server,
      "GET",
      `/v3/messages?accountId=${account.accountId}&body=${encodeURIComponent("spring sale starts today")}&count=100`,
      { headers: account.headers },
    );
    const sent = listing.json.data.results as { from: string; to: string; body: string; status: string }[];
    expect(sent).toHaveLength(tagged.length);
    expect(sent.find((m) => m.to === phones[0])?.body).toBe("Hi Ana, the spring sale starts today.");
    expect(new Set(sent.filter((m) => m.status === "delivered").map((m) => m.from)).size).toBe(3);
    expect(sent.filter((m) => m.status === "rejected")).toHaveLength(2);

    // A phone writes back: counted as a reply.
    await parley(
      ["inbound", "--from", `+${phones[1]}`, "--to", `+${account.numbers[0]}`, "--body", "Thanks!"],
      server.database.url,
    );
    expect((await campaign(created.id)).counts.replied).toBe(1);

    const list = await call(server, "GET", admin("/campaigns"), { headers: account.headers });
    expect(list.json.data.campaigns.map((c: Campaign) => c.id)).toContain(created.id);
  });
});

describe("pause, resume and cancel", () => {
  it("holds a running campaign's waiting messages, then sends them on resume", async () => {
    const numbers = Array.from({ length: 6 }, () => randomNumber());
    const res = await create({
      name: "Held",
      fromNumbers: [account.numbers[3]],
      body: "One number, one a second",
      audience: { numbers },
    });
    expect(res.status, res.text).toBe(200);
    const id = res.json.data.campaign.id as string;
    const paused = await act(id, "pause");
    expect(paused.status).toBe("paused");
    expect(paused.counts.scheduled).toBeGreaterThanOrEqual(3);
    const held = paused.counts.scheduled;
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect((await campaign(id)).counts.scheduled).toBe(held);

    const resumed = await act(id, "resume");
    expect(resumed.status).toBe("running");
    expect(resumed.counts.scheduled).toBe(0);
    const finished = await waitUntil(
      "the resumed campaign to finish",
      async () => {
        const c = await campaign(id);
        return c.status === "finished" ? c : null;
      },
      30_000,
      250,
    );
    expect(finished.counts.delivered).toBe(6);
  });

  it("a campaign for later waits, pauses and resumes to its time, and cancels every message", async () => {
    const numbers = Array.from({ length: 4 }, () => randomNumber());
    const sendAt = new Date(Date.now() + 10 * 60_000).toISOString();
    const res = await create({ name: "Tomorrow", body: "See you tomorrow", audience: { numbers }, sendAt });
    expect(res.status, res.text).toBe(200);
    const later = res.json.data.campaign as Campaign;
    expect(later).toMatchObject({ status: "scheduled" });
    expect(later.counts.scheduled).toBe(4);
    // Its messages wait for the campaign's own time.
    const listing = await call(
      server,
      "GET",
      `/v3/messages?accountId=${account.accountId}&body=${encodeURIComponent("See you tomorrow")}&count=10`,
      { headers: account.headers },
    );
    expect(listing.json.data.results).toHaveLength(4);
    const detail = await call(server, "GET", admin(`/messages/${listing.json.data.results[0].messageId}`), {
      headers: account.headers,
    });
    expect(detail.json.data.message).toMatchObject({ status: "scheduled", sendAt: sendAt });
    expect((await act(later.id, "pause")).status).toBe("paused");
    expect((await act(later.id, "resume")).status).toBe("scheduled");
    const cancelled = await act(later.id, "cancel");
    expect(cancelled).toMatchObject({ status: "cancelled", done: 4 });
    expect(cancelled.counts.cancelled).toBe(4);
    const again = await call(server, "POST", `/v3/campaigns/${later.id}/resume`, { headers: account.headers });
    expect(again.status).toBe(400);
    expect(again.json.data.error_message).toMatch(/cancelled/);
  });
});

describe("refusals", () => {
  it("names the field: an unknown variable, a number not the account's, a tag nobody has, a bad time", async () => {
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{ body: "Hi {{contact.nickname}}", audience: { tag: "vip" } }, "body", /\{\{contact\.nickname\}\}/],
      [{ fromNumbers: [other.numbers[0]], audience: { tag: "vip" } }, "fromNumbers", /not one of the account's/],
      [{ audience: { tag: "nobody-has-this" } }, "audience.tag", /no contact has the tag/],
      [{ audience: { tag: "vip" }, sendAt: "tomorrow" }, "sendAt", /ISO 8601/],
      [{ audience: { numbers: [] } }, "audience.numbers", /give at least one number/],
    ];
    for (const [fields, field, message] of cases) {
      const res = await create({ name: "Bad", body: "Hello", ...fields });
      expect(res.status, JSON.stringify(fields)).toBe(400);
      expect(res.json.data.field).toBe(field);
      expect(res.json.data.error_message).toMatch(message);
    }
    const foreign = await create({ name: "x", body: "y", audience: { tag: "vip" } }, other);
    expect(foreign.status).toBe(403);
    const missing = await call(server, "POST", "/v3/campaigns", { headers: account.headers, body: { name: "x" } });
    expect(missing.json.status).toBe("MissingAccountId");
    const unknown = await call(server, "GET", "/v3/campaigns/00000000-0000-7000-8000-000000000000", {
      headers: account.headers,
    });
    expect(unknown.status).toBe(404);
    const theirs = await call(server, "GET", `/v3/campaigns?accountId=${account.accountId}`, {
      headers: other.headers,
    });
    expect(theirs.status).toBe(403);
  });
});
