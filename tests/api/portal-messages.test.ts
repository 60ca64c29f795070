import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../helpers/server";
import { call, createTestAccount, releaseFactories, type TestAccount } from "../helpers/factories";
import { portalCookie } from "../helpers/portal-session";
import { createUser } from "../../lib/accounts/manage-accounts";
import { db } from "../../lib/db/client";
import { startWorker } from "../helpers/worker-process";

// The portal's message routes (/api/admin/accounts/{accountId}/messages[/{id}]) and the dashboard's, as the
// Messages page, the message page and the dashboard call them: who may read them, what they answer, and that a
// bad filter gets the very words GET /v3/messages answers.

let server: RunningServer;
let account: TestAccount;
let other: TestAccount;
let admin: string;
let agent: string;
let otherAdmin: string;
const password = "correct horse battery";
const sent = {} as { first: string; second: string; third: string; rejected: string };
let otherMessage: string;

async function send(from: TestAccount, body: Record<string, unknown>): Promise<string> {
  const res = await call(server, "POST", "/v3/messages", {
    headers: from.headers,
    body: { accountId: from.accountId, from: from.numbers[0], ...body },
  });
  expect(res.status, res.text).toBe(200);
  return res.json.data.messageInfo[0].messageId as string;
}

beforeAll(async () => {
  server = await startServer();
  account = await createTestAccount(server, { name: "Portal messages" });
  other = await createTestAccount(server, { name: "Other" });
  for (const [who, role] of [
    ["admin", "admin"],
    ["agent", "agent"],
  ] as const)
    await createUser({
      accountId: account.accountId,
      email: `${who}-${account.accountId}@example.com`,
      password,
      role,
    });
  await createUser({
    accountId: other.accountId,
    email: `admin-${other.accountId}@example.com`,
    password,
    role: "admin",
  });
  admin = await portalCookie(server, `admin-${account.accountId}@example.com`, password);
  agent = await portalCookie(server, `agent-${account.accountId}@example.com`, password);
  otherAdmin = await portalCookie(server, `admin-${other.accountId}@example.com`, password);

  sent.first = await send(account, { to: "14155550123", body: "Apples for the first", referenceId: "ref1" });
  sent.second = await send(account, { to: "12125550188", body: "Bananas for the second" });
  sent.third = await send(account, { to: "13125550177", body: "apples AGAIN", from: account.numbers[1] });
  // From a number of the other account: refused, FromNotOwned.
  sent.rejected = await send(account, { to: "14155550123", body: "Not from here", from: other.numbers[0] });
  otherMessage = await send(other, { to: "14155550123", body: "Secret of the other account" });
});

afterAll(async () => {
  await releaseFactories();
  await server?.stop();
});

const messagesPath = (accountId: string, query = "") => `/api/admin/accounts/${accountId}/messages${query}`;
const as = (cookie: string) => ({ headers: { cookie } });

describe("GET /api/admin/accounts/{accountId}/messages", () => {
  it("lists the account's messages to an admin, newest first, with the v3 listing fields", async () => {
    const res = await call(server, "GET", messagesPath(account.accountId), as(admin));
    expect(res.status, res.text).toBe(200);
    expect(res.json.status).toBe("QueryCompletedSuccessfully");
    expect(res.json.data).toMatchObject({ total: 4, position: 0, apiVersion: "v3" });
    const results = res.json.data.results as { messageId: string }[];
    expect(results.map((r) => r.messageId)).toEqual([sent.rejected, sent.third, sent.second, sent.first]);
    expect(results[3]).toMatchObject({
      accountId: account.accountId,
      from: account.numbers[0],
      to: "14155550123",
      body: "Apples for the first",
      status: "queued",
      referenceId: "ref1",
      direction: "outbound",
      messageType: "sms",
    });
  });

  it("filters, sorts and pages with the API's parameters", async () => {
    const get = async (query: string) => {
      const res = await call(server, "GET", messagesPath(account.accountId, query), as(admin));
      expect(res.status, res.text).toBe(200);
      return res.json.data as { total: number; results: { messageId: string }[] };
    };
    const idsOf = (data: { results: { messageId: string }[] }) => data.results.map((r) => r.messageId);
    expect(idsOf(await get("?status=rejected"))).toEqual([sent.rejected]);
    expect(idsOf(await get("?to=%2B14155550123&sortDir=asc"))).toEqual([sent.first, sent.rejected]);
    expect(idsOf(await get("?body=APPLES&sortBy=to&sortDir=desc"))).toEqual([sent.first, sent.third]);
    expect(idsOf(await get(`?from=${account.numbers[1]}`))).toEqual([sent.third]);
    expect(idsOf(await get("?referenceId=ref1"))).toEqual([sent.first]);
    expect(idsOf(await get(`?messageId=${sent.second.toUpperCase()}`))).toEqual([sent.second]);
    expect(idsOf(await get("?direction=inbound"))).toEqual([]);
    expect(idsOf(await get("?messageType=mms"))).toEqual([]);
    expect((await get("?timestampBegin=2000-01-01&timestampEnd=2999-01-01")).total).toBe(4);
    const page = await get("?count=2&start=2&sortDir=asc");
    expect(page.total).toBe(4);
    expect(idsOf(page)).toEqual([sent.third, sent.rejected]);
  });

  it("answers a bad filter with InvalidRequest in the very words of GET /v3/messages, naming the field", async () => {
    for (const query of [
      "status=bogus",
      "to=not-a-number",
      "from=%2B1",
      "timestampBegin=yesterday",
      "timestampEnd=2026-02-30",
      "messageId=123",
      "referenceId=has%20space",
      "direction=sideways",
      "messageType=fax",
      "count=0",
      "start=-1",
      "sortBy=body",
      "sortDir=up",
    ]) {
      const portal = await call(server, "GET", messagesPath(account.accountId, `?${query}`), as(admin));
      const api = await call(server, "GET", `/v3/messages?accountId=${account.accountId}&${query}`, {
        headers: account.headers,
      });
      expect(portal.status, query).toBe(400);
      expect(api.status, query).toBe(400);
      expect(portal.json.status).toBe("InvalidRequest");
      expect(portal.json.statusMessage).toBe("Invalid Request");
      expect(portal.json.data.field, query).toBe(api.json.data.field);
      expect(portal.json.data.error_message, query).toBe(api.json.data.error_message);
      expect(portal.json.data.error_message, query).toMatch(new RegExp(`^'${api.json.data.field}' `));
    }
  });

  it("lets the account's agents read, and nobody write", async () => {
    const res = await call(server, "GET", messagesPath(account.accountId, "?status=queued"), as(agent));
    expect(res.status, res.text).toBe(200);
    expect(res.json.data.total).toBe(3);
    for (const method of ["POST", "PUT", "DELETE"]) {
      const write = await call(server, method, messagesPath(account.accountId), {
        headers: { cookie: agent, "content-type": "application/json" },
        body: { to: "14155550123", body: "no" },
      });
      expect({ status: write.status, body: write.json }, method).toMatchObject({
        status: 400,
        body: { status: "ResourceNotAllowed", statusCode: 400, statusMessage: `Resource not allowed on ${method}` },
      });
    }
  });

  it("answers the account's API key too, and 401 without credentials", async () => {
    const res = await call(server, "GET", messagesPath(account.accountId), { headers: { apikey: account.apiKey } });
    expect(res.status).toBe(200);
    expect(res.json.data.total).toBe(4);
    expect((await call(server, "GET", messagesPath(account.accountId))).status).toBe(401);
  });

  it("refuses another account's id with 403, to admins, agents and keys alike", async () => {
    for (const options of [as(admin), as(agent), { headers: { apikey: account.apiKey } }]) {
      const res = await call(server, "GET", messagesPath(other.accountId), options);
      expect(res.status).toBe(403);
      expect(res.json.status).toBe("Forbidden");
      expect(res.text).not.toContain("Secret of the other account");
    }
    const mine = await call(server, "GET", messagesPath(other.accountId), as(otherAdmin));
    expect(mine.json.data.results.map((r: { body: string }) => r.body)).toEqual(["Secret of the other account"]);
  });
});

describe("GET /api/admin/accounts/{accountId}/messages/{messageId}", () => {
  it("answers the message with every field and its SDRs, to admins and agents", async () => {
    for (const cookie of [admin, agent]) {
      const res = await call(server, "GET", messagesPath(account.accountId, `/${sent.first}`), as(cookie));
      expect(res.status, res.text).toBe(200);
      expect(res.json.data.message).toMatchObject({
        messageId: sent.first,
        accountId: account.accountId,
        direction: "outbound",
        messageType: "sms",
        from: account.numbers[0],
        to: "14155550123",
        body: "Apples for the first",
        media: [],
        numSegments: 1,
        encoding: "GSM7",
        status: "queued",
        rejectReason: "",
        referenceId: "ref1",
        bulk: false,
        conversational: false,
      });
      expect(res.json.data.sdrs.map((r: { status: string }) => r.status)).toEqual(["accepted", "queued"]);
      expect(res.json.data.sdrs[0]).toMatchObject({ delta: "00.000", referenceId: "ref1", statusDetails: "" });
    }
  });

  it("gives a refused message its reason", async () => {
    const res = await call(server, "GET", messagesPath(account.accountId, `/${sent.rejected}`), as(agent));
    expect(res.json.data.message).toMatchObject({ status: "rejected", rejectReason: "FromNotOwned" });
    expect(res.json.data.sdrs).toMatchObject([{ status: "rejected", statusDetails: "FromNotOwned" }]);
  });

  it("answers another account's message id with 404, never its data", async () => {
    for (const id of [otherMessage, otherMessage.toUpperCase(), "0196a1b2-3c4d-7e5f-8a9b-0c1d2e3f4a5b", "nope"]) {
      const res = await call(server, "GET", messagesPath(account.accountId, `/${id}`), as(admin));
      expect(res.status, id).toBe(404);
      expect(res.json.status).toBe("MessageNotFound");
      expect(res.text).not.toContain("Secret");
    }
    const elsewhere = await call(server, "GET", messagesPath(other.accountId, `/${otherMessage}`), as(agent));
    expect(elsewhere.status).toBe(403);
  });
});

describe("GET /api/admin/accounts/{accountId}/dashboard", () => {
  it("answers today's messages by status, queues per number, webhook health and no live worker", async () => {
    const res = await call(server, "GET", `/api/admin/accounts/${account.accountId}/dashboard`, as(admin));
    expect(res.status, res.text).toBe(200);
    const data = res.json.data;
    expect(data.account).toMatchObject({ id: account.accountId, timeZone: "UTC" });
    expect(data.today).toMatchObject({ total: 4, byStatus: { queued: 3, rejected: 1 } });
    expect(data.today.since).toBe(`${new Date().toISOString().slice(0, 10)}T00:00:00.000Z`);
    expect(data.queues).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          number: account.numbers[0],
          messages: 2,
          segments: 2,
          ratePerSecond: 1,
          waitSeconds: 2,
        }),
        expect.objectContaining({ number: account.numbers[1], messages: 1, segments: 1, waitSeconds: 1 }),
      ]),
    );
    expect(data.webhook).toMatchObject({
      url: null,
      configured: false,
      attempts: 0,
      accepted: 0,
      successRate: null,
      lastError: null,
      backlog: 0,
      oldestPendingAt: null,
      failedEvents: 0,
    });
    // The server runs no worker in this suite; the account's numbers are on the default connection, it has no other.
    expect(data.carrier).toEqual({ configured: "simulator", usesDefault: true, workers: [] });
    expect(data.connections).toEqual([]);
  });

  it("shows the carrier state a worker wrote within the last 30 s, and forgets an older one", async () => {
    const now = Date.now();
    await db().workerStatus.createMany({
      data: [
        {
          workerId: "host:1:live",
          carrier: "smpp",
          state: "down",
          detail: "connect ECONNREFUSED 127.0.0.1:2775; reconnecting to 127.0.0.1:2775",
          since: new Date(now - 60_000),
          updatedAt: new Date(now - 2_000),
        },
        {
          workerId: "host:2:gone",
          carrier: "smpp",
          state: "bound",
          detail: "",
          since: new Date(now - 600_000),
          updatedAt: new Date(now - 45_000),
        },
      ],
    });
    try {
      const res = await call(server, "GET", `/api/admin/accounts/${account.accountId}/dashboard`, as(admin));
      expect(res.json.data.carrier.workers).toEqual([
        expect.objectContaining({
          workerId: "host:1:live",
          state: "down",
          since: new Date(now - 60_000).toISOString(),
        }),
      ]);
    } finally {
      await db().workerStatus.deleteMany({});
    }
  });

  it("is for admins: agents get 403, another account 403", async () => {
    expect((await call(server, "GET", `/api/admin/accounts/${account.accountId}/dashboard`, as(agent))).status).toBe(
      403,
    );
    expect((await call(server, "GET", `/api/admin/accounts/${other.accountId}/dashboard`, as(admin))).status).toBe(403);
  });
});

describe("the carrier state of a worker in its own process (npm run worker)", () => {
  // Last in the file: the worker delivers what the tests above left queued.
  it("is on the dashboard while the worker runs, and gone at once when it stops cleanly", async () => {
    const dashboard = async () =>
      (await call(server, "GET", `/api/admin/accounts/${account.accountId}/dashboard`, as(admin))).json.data;
    const worker = await startWorker(server.database.url);
    try {
      expect((await dashboard()).carrier.workers).toEqual([
        expect.objectContaining({ workerId: worker.id, carrier: "simulator", state: "connected" }),
      ]);
      worker.signalWorker("SIGTERM");
      expect(await worker.exited).toEqual({ code: 0, signal: null });
      expect((await dashboard()).carrier.workers).toEqual([]);
    } finally {
      await worker.stop();
    }
  });
});
