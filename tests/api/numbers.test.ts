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
import { createUser } from "../../lib/accounts/manage-accounts";
import { db } from "../../lib/db/client";

// An account's telephone numbers: /v3/numbers (API key) and the portal's admin routes (session), one service behind
// both. The delivery worker is off, so what is sent stays queued.

let server: RunningServer;
let account: TestAccount;
let other: TestAccount;
let adminCookie: string;
let agentCookie: string;
const password = "correct horse battery";
const LISTING_TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{3} UTC$/;

beforeAll(async () => {
  server = await startServer();
  [account, other] = await Promise.all([
    createTestAccount(server, { name: "Numbers Inc" }),
    createTestAccount(server, { name: "Elsewhere Ltd" }),
  ]);
  await createUser({
    accountId: account.accountId,
    email: `admin-${account.accountId}@example.com`,
    password,
    role: "admin",
  });
  await createUser({
    accountId: account.accountId,
    email: `agent-${account.accountId}@example.com`,
    password,
    role: "agent",
  });
  [adminCookie, agentCookie] = await Promise.all([
    portalCookie(server, `admin-${account.accountId}@example.com`, password),
    portalCookie(server, `agent-${account.accountId}@example.com`, password),
  ]);
});

afterAll(async () => {
  await releaseFactories();
  await server?.stop();
});

const list = (who: TestAccount, query: string, headers = who.headers) =>
  call(server, "GET", `/v3/numbers?accountId=${who.accountId}${query}`, { headers });
const provision = (who: TestAccount, body: Record<string, unknown>, headers = who.headers) =>
  call(server, "POST", "/v3/numbers", { headers, body: { accountId: who.accountId, ...body } });
const release = (who: TestAccount, number: string, query = "", headers = who.headers) =>
  call(server, "DELETE", `/v3/numbers/${encodeURIComponent(number)}?accountId=${who.accountId}${query}`, { headers });
const send = (who: TestAccount, from: string) =>
  call(server, "POST", "/v3/messages", {
    headers: who.headers,
    body: { accountId: who.accountId, from, to: "14155550123", body: "From a number about to go" },
  });

function expectError(res: ApiResponse, status: number, code: string, field?: string) {
  expect(res.status, res.text).toBe(status);
  expect(res.json).toMatchObject({ status: code, statusCode: status });
  if (field) expect(res.json.data.field).toBe(field);
}

describe("GET /v3/numbers", () => {
  it("lists the account's numbers in number order, paged, with total and position", async () => {
    const extra = [randomNumber(), randomNumber(), randomNumber()];
    for (const number of extra) expect((await provision(account, { number })).status).toBe(200);
    const all = [...account.numbers, ...extra].sort();

    const first = await list(account, "&count=2");
    expect(first.status, first.text).toBe(200);
    expect(first.json).toMatchObject({ status: "QueryCompletedSuccessfully", statusCode: 200, statusUri: "" });
    expect(first.json.data).toMatchObject({
      accountId: account.accountId,
      count: "2",
      total: all.length,
      position: 0,
      apiVersion: "v3",
    });
    expect(first.json.data.numbers.map((n: { number: string }) => n.number)).toEqual(all.slice(0, 2));
    for (const entry of first.json.data.numbers) {
      expect(Object.keys(entry).sort()).toEqual(["carrier", "createdAt", "label", "number", "ratePerSecond"]);
      expect(entry.createdAt).toMatch(LISTING_TIME);
      expect(entry.ratePerSecond).toBe(1);
    }
    const last = await list(account, `&start=${all.length - 1}&count=2`);
    expect(last.json.data).toMatchObject({
      start: String(all.length - 1),
      position: all.length - 1,
      total: all.length,
    });
    expect(last.json.data.numbers.map((n: { number: string }) => n.number)).toEqual(all.slice(-1));
    // Another account's numbers are not in the list.
    expect(JSON.stringify((await list(account, "&count=1000")).json)).not.toContain(other.numbers[0]);
  });

  it("refuses a missing accountId, bad paging and another account's credentials", async () => {
    expectError(await call(server, "GET", "/v3/numbers", { headers: account.headers }), 400, "MissingAccountId");
    expectError(await list(account, "&count=0"), 400, "InvalidRequest", "count");
    expectError(await list(account, "&start=-1"), 400, "InvalidRequest", "start");
    expectError(
      await call(server, "GET", "/v3/numbers?accountId=nope", { headers: account.headers }),
      400,
      "InvalidRequest",
      "accountId",
    );
    expectError(await list(account, "", other.headers), 403, "Forbidden");
    expectError(await list(account, "", {}), 401, "Unauthorized");
  });
});

describe("POST /v3/numbers", () => {
  it("provisions a number with a label, and provisioning it again changes nothing", async () => {
    const number = randomNumber();
    const created = await provision(account, { number: `+${number}`, label: "Support line" });
    expect(created.status, created.text).toBe(200);
    expect(created.json).toMatchObject({
      status: "UpdateSuccessful",
      statusCode: 200,
      statusMessage: "Update Successful",
    });
    expect(created.json.data).toMatchObject({
      accountId: account.accountId,
      number,
      label: "Support line",
      ratePerSecond: 1,
      created: true,
      apiVersion: "v3",
    });
    expect(created.json.data.createdAt).toMatch(LISTING_TIME);

    const again = await provision(account, { number, label: "Another label" });
    expect(again.status, again.text).toBe(200);
    expect(again.json.data).toMatchObject({ number, label: "Support line", created: false });
    expect(again.json.data.createdAt).toBe(created.json.data.createdAt);

    // It sends at once (the server forgot what it knew of the number's owner).
    const sent = await send(account, number);
    expect(sent.json.data.error).toBeUndefined();
    expect(sent.json.data.messageInfo[0].status).toBe("accepted");
  });

  it("refuses an invalid number, a missing number and a bad rate, naming the field", async () => {
    const invalid = await provision(account, { number: "+1555" });
    expectError(invalid, 400, "InvalidRequest", "number");
    expect(invalid.json.data.error_message).toMatch(/"\+1555" is not a valid telephone number/);
    expectError(await provision(account, {}), 400, "InvalidRequest", "number");
    expectError(
      await provision(account, { number: randomNumber(), ratePerSecond: 0 }),
      400,
      "InvalidRequest",
      "ratePerSecond",
    );
    expectError(
      await provision(account, { number: randomNumber(), label: "x".repeat(101) }),
      400,
      "InvalidRequest",
      "label",
    );
  });

  it("answers the request-shape errors of the API: no JSON, bad JSON, not an object, no accountId", async () => {
    const post = (rawBody: string) => call(server, "POST", "/v3/numbers", { headers: account.headers, rawBody });
    expectError(await post(""), 400, "MissingJSON");
    expectError(await post("{nope"), 400, "InvalidJSON");
    expectError(await post("[]"), 400, "InvalidRequest");
    expectError(await post(JSON.stringify({ number: randomNumber() })), 400, "MissingAccountId");
  });

  it("refuses a number another account holds without saying which account", async () => {
    const res = await provision(account, { number: other.numbers[0] });
    expectError(res, 400, "InvalidRequest", "number");
    expect(res.json.data.error_message).toMatch(/provisioned to another account/);
    expect(res.text).not.toContain(other.accountId);
    expect(res.text).not.toContain("Elsewhere");
    // …and it stays the other account's.
    expect((await list(other, "&count=1000")).json.data.numbers.map((n: { number: string }) => n.number)).toContain(
      other.numbers[0],
    );
  });

  it("refuses another account's credentials (403) and no credentials (401)", async () => {
    expectError(await provision(account, { number: randomNumber() }, other.headers), 403, "Forbidden");
    expectError(
      await provision(account, { number: randomNumber() }, { "content-type": "application/json" }),
      401,
      "Unauthorized",
    );
  });
});

describe("DELETE /v3/numbers/{number}", () => {
  it("releases a number: it is no longer listed and can no longer send (FromNotOwned)", async () => {
    const number = randomNumber();
    await provision(account, { number });
    const res = await release(account, `+${number}`);
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({ status: "UpdateSuccessful", statusCode: 200 });
    expect(res.json.data).toMatchObject({
      accountId: account.accountId,
      number,
      released: true,
      cancelledMessages: 0,
      apiVersion: "v3",
    });
    const listed = await list(account, "&count=1000");
    expect(listed.json.data.numbers.map((n: { number: string }) => n.number)).not.toContain(number);

    const sent = await send(account, number);
    expect(sent.status).toBe(200);
    expect(sent.json.data).toMatchObject({ error_code: 1001, error: "FromNotOwned" });
    expect(sent.json.data.messageInfo[0]).toMatchObject({ status: "rejected", reason: "FromNotOwned" });
  });

  it("cancels the messages still queued from the number: rejected, reason FromNotOwned", async () => {
    const number = randomNumber();
    await provision(account, { number });
    const queued = [await send(account, number), await send(account, number)].map(
      (r) => r.json.data.messageInfo[0].messageId as string,
    );
    const released = await release(account, number);
    expect(released.status, released.text).toBe(200);
    expect(released.json.data).toMatchObject({ released: true, cancelledMessages: 2 });

    const listing = await call(server, "GET", `/v3/messages?accountId=${account.accountId}&from=${number}`, {
      headers: account.headers,
    });
    expect(listing.json.data.results.map((m: { status: string }) => m.status)).toEqual(["rejected", "rejected"]);
    for (const messageId of queued) {
      const sdrs = await call(server, "GET", `/v3/sdrs/${account.accountId}/${messageId}`, {
        headers: account.headers,
      });
      expect(sdrs.json.data.results.map((r: { status: string }) => r.status)).toEqual([
        "accepted",
        "queued",
        "rejected",
      ]);
      expect(sdrs.json.data.results.at(-1)).toMatchObject({ statusDetails: "FromNotOwned" });
    }
  });

  it("waits for a message being handed to the carrier: refused for now, nothing cancelled", async () => {
    const number = randomNumber();
    await provision(account, { number });
    const inFlight = (await send(account, number)).json.data.messageInfo[0].messageId as string;
    const waiting = (await send(account, number)).json.data.messageInfo[0].messageId as string;
    await db().message.update({ where: { id: inFlight }, data: { status: "sending" } });

    const refused = await release(account, number);
    expectError(refused, 400, "InvalidRequest");
    expect(refused.json.data.error_message).toMatch(/1 message from \+\d+ is being handed to the carrier right now/);
    expect((await db().message.findUnique({ where: { id: waiting } }))?.status).toBe("queued");
    expect((await send(account, number)).json.data.messageInfo[0].status).toBe("accepted"); // still the account's

    await db().message.update({ where: { id: inFlight }, data: { status: "sent" } });
    const released = await release(account, number);
    expect(released.json.data).toMatchObject({ released: true, cancelledMessages: 2 });
  });

  it("answers NotFound for a number the account does not hold, whoever holds it", async () => {
    const nobody = await release(account, randomNumber());
    expectError(nobody, 404, "NotFound", "number");
    const elsewhere = await release(account, other.numbers[0]!);
    expectError(elsewhere, 404, "NotFound", "number");
    expect(elsewhere.json.data.error_message).toBe(
      nobody.json.data.error_message.replace(/\+\d+/, `+${other.numbers[0]}`),
    );
    expect(elsewhere.text).not.toContain(other.accountId);
    expectError(await release(account, "not-a-number"), 400, "InvalidRequest", "number");
  });

  it("refuses a missing accountId, another account's credentials and no credentials", async () => {
    expectError(
      await call(server, "DELETE", `/v3/numbers/${account.numbers[0]}`, { headers: account.headers }),
      400,
      "MissingAccountId",
    );
    expectError(await release(account, account.numbers[0]!, "", other.headers), 403, "Forbidden");
    expectError(await release(account, account.numbers[0]!, "", {}), 401, "Unauthorized");
    // Still there.
    expect((await send(account, account.numbers[0]!)).json.data.error).toBeUndefined();
  });
});

describe("methods /v3/numbers does not offer", () => {
  it("answer ResourceNotAllowed naming the method, without credentials", async () => {
    for (const [method, path] of [
      ["PUT", "/v3/numbers"],
      ["DELETE", "/v3/numbers"],
      ["PATCH", "/v3/numbers"],
      ["GET", `/v3/numbers/${account.numbers[0]}`],
      ["POST", `/v3/numbers/${account.numbers[0]}`],
      ["PUT", `/v3/numbers/${account.numbers[0]}`],
    ] as const) {
      const res = await call(server, method, path);
      expectError(res, 400, "ResourceNotAllowed");
      expect(res.json.statusMessage).toBe(`Resource not allowed on ${method}`);
    }
  });
});

describe("the audit trail", () => {
  it("records what keys provisioned and released, with the key as actor", async () => {
    const number = randomNumber();
    await provision(account, { number, label: "Audited" });
    await release(account, number);
    const events = await db().auditEvent.findMany({
      where: { accountId: account.accountId, target: `+${number}` },
      orderBy: { createdAt: "asc" },
    });
    expect(events.map((e) => e.action)).toEqual(["number.provisioned", "number.released"]);
    expect(events[0]!.actor).toMatch(/^apiKey:/);
    expect(events[0]!.detail).toContain('label "Audited"');
  });
});

describe("admin routes /api/admin/accounts/{accountId}/numbers", () => {
  const base = (accountId: string) => `/api/admin/accounts/${accountId}/numbers`;
  const asAdmin = { cookie: "", "content-type": "application/json" };

  it("let an admin list, provision, update and release, each change in the audit trail", async () => {
    const headers = { ...asAdmin, cookie: adminCookie };
    const number = randomNumber();
    const added = await call(server, "POST", base(account.accountId), {
      headers,
      body: { number, label: "Front desk" },
    });
    expect(added.status, added.text).toBe(200);
    expect(added.json.data).toMatchObject({
      created: true,
      number: { number, label: "Front desk", ratePerSecond: 1, queued: 0 },
    });

    await send(account, number);
    const page = await call(server, "GET", `${base(account.accountId)}?count=100`, { headers });
    expect(page.status, page.text).toBe(200);
    expect(page.json.data).toMatchObject({ start: 0, count: 100, total: expect.any(Number) });
    const row = page.json.data.numbers.find((n: { number: string }) => n.number === number);
    expect(row).toMatchObject({ label: "Front desk", queued: 1 });
    expect(new Date(row.createdAt).toISOString()).toBe(row.createdAt);
    const paged = await call(server, "GET", `${base(account.accountId)}?start=1&count=1`, { headers });
    expect(paged.json.data.numbers).toHaveLength(1);

    const updated = await call(server, "PATCH", `${base(account.accountId)}/${number}`, {
      headers,
      body: { label: "Reception", ratePerSecond: 2.5 },
    });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.json.data.number).toMatchObject({ number, label: "Reception", ratePerSecond: 2.5 });
    const stored = await db().phoneNumber.findUnique({ where: { number } });
    expect(stored).toMatchObject({ label: "Reception", ratePerSecond: 2.5 });

    const released = await call(server, "DELETE", `${base(account.accountId)}/${number}`, { headers });
    expect(released.status, released.text).toBe(200);
    expect(released.json.data).toMatchObject({ number, released: true, cancelledMessages: 1 });
    // Refused at once by /v3/messages, which the portal's release reached too.
    expect((await send(account, number)).json.data.error).toBe("FromNotOwned");

    const events = await db().auditEvent.findMany({
      where: { accountId: account.accountId, target: `+${number}` },
      orderBy: { createdAt: "asc" },
    });
    expect(events.map((e) => [e.action, e.actor])).toEqual([
      ["number.provisioned", `user:admin-${account.accountId}@example.com`],
      ["number.updated", `user:admin-${account.accountId}@example.com`],
      ["number.released", `user:admin-${account.accountId}@example.com`],
    ]);
    expect(events[1]!.detail).toBe('label "Front desk" → "Reception", rate 1 → 2.5 msgs/s');
    expect(events[2]!.detail).toBe("cancelled 1 queued message");
    expect(events[2]!.ip).toMatch(/127\.0\.0\.1/);
  });

  it("name the field at fault, as the portal's form shows it", async () => {
    const headers = { ...asAdmin, cookie: adminCookie };
    const bad = await call(server, "POST", base(account.accountId), { headers, body: { number: "12345" } });
    expectError(bad, 400, "InvalidRequest", "number");
    const taken = await call(server, "POST", base(account.accountId), { headers, body: { number: other.numbers[0] } });
    expectError(taken, 400, "InvalidRequest", "number");
    expect(taken.text).not.toContain(other.accountId);
    for (const rate of [0, -1, 101, "fast"]) {
      const res = await call(server, "PATCH", `${base(account.accountId)}/${account.numbers[0]}`, {
        headers,
        body: { ratePerSecond: rate },
      });
      expectError(res, 400, "InvalidRequest", "ratePerSecond");
    }
    const nothing = await call(server, "PATCH", `${base(account.accountId)}/${account.numbers[0]}`, {
      headers,
      body: {},
    });
    expectError(nothing, 400, "InvalidRequest");
    const notHeld = await call(server, "PATCH", `${base(account.accountId)}/${other.numbers[0]}`, {
      headers,
      body: { label: "Mine now" },
    });
    expectError(notHeld, 404, "NotFound", "number");
    expect((await db().phoneNumber.findUnique({ where: { number: other.numbers[0] } }))?.label).toBe("");
  });

  it("answer an agent 403, and another account's id 403 to an admin session and to a key", async () => {
    const number = account.numbers[0]!;
    const routes = [
      ["GET", base(account.accountId)],
      ["POST", base(account.accountId)],
      ["PATCH", `${base(account.accountId)}/${number}`],
      ["DELETE", `${base(account.accountId)}/${number}`],
    ] as const;
    for (const [method, path] of routes) {
      const body = method === "POST" ? { number: randomNumber() } : method === "PATCH" ? { label: "x" } : undefined;
      const agent = await call(server, method, path, { headers: { ...asAdmin, cookie: agentCookie }, body });
      expectError(agent, 403, "Forbidden");
      const elsewhere = path.replace(account.accountId, other.accountId);
      expectError(
        await call(server, method, elsewhere, { headers: { ...asAdmin, cookie: adminCookie }, body }),
        403,
        "Forbidden",
      );
      expectError(await call(server, method, elsewhere, { headers: account.headers, body }), 403, "Forbidden");
    }
    // Nothing changed.
    expect((await db().phoneNumber.findUnique({ where: { number } }))?.accountId).toBe(account.accountId);
    expect((await db().phoneNumber.findUnique({ where: { number: other.numbers[0] } }))?.accountId).toBe(
      other.accountId,
    );
  });
});
