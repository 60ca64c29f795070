import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../helpers/server";
import {
  call,
  createKey,
  createTestAccount,
  releaseFactories,
  type ApiResponse,
  type TestAccount,
} from "../helpers/factories";
import { listApiKeys, revokeApiKeyByIdOrKey } from "../../lib/accounts/manage-accounts";

// GET /v3/sdrs/{accountId}/{messageId} and the API's authentication, driven over HTTP against the real server.
// Keys are trusted for API_KEY_CACHE_SECONDS once looked up; one second here keeps the revocation test short.

const CACHE_SECONDS = 1;
let server: RunningServer;
let account: TestAccount;
let other: TestAccount;

beforeAll(async () => {
  server = await startServer({ env: { API_KEY_CACHE_SECONDS: String(CACHE_SECONDS) } });
  // Creating the accounts binds the factories (and so lib/accounts) to this server's database.
  account = await createTestAccount(server);
  other = await createTestAccount(server);
});

afterAll(async () => {
  await releaseFactories();
  await server?.stop();
});

interface SendInfo {
  messageId: string;
  status: string;
  reason: string;
}

const LISTING_TIMESTAMP = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{3} UTC$/;
const DELTA = /^\d{2,}\.\d{3}$/;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function basic(accountId: string, key: string): string {
  return `Basic ${Buffer.from(`${accountId}:${key}`).toString("base64")}`;
}

async function send(from: TestAccount, body: Record<string, unknown>): Promise<SendInfo[]> {
  const res = await call(server, "POST", "/v3/messages", {
    headers: from.headers,
    body: { accountId: from.accountId, from: from.numbers[0], ...body },
  });
  expect(res.status, res.text).toBe(200);
  return res.json.data.messageInfo as SendInfo[];
}

async function sendOne(from: TestAccount, body: Record<string, unknown>, index = 0): Promise<SendInfo> {
  const info = (await send(from, body))[index];
  expect(info).toBeDefined();
  return info!;
}

function sdrs(
  accountId: string,
  messageId: string,
  headers: Record<string, string> = account.headers,
): Promise<ApiResponse> {
  return call(server, "GET", `/v3/sdrs/${accountId}/${messageId}`, { headers });
}

/** The message's timestamp as the listing shows it. */
async function listingTimestampOf(owner: TestAccount, messageId: string): Promise<string> {
  const res = await call(server, "GET", `/v3/messages?accountId=${owner.accountId}&messageId=${messageId}`, {
    headers: owner.headers,
  });
  expect(res.json.data.results).toHaveLength(1);
  return res.json.data.results[0].timestamp as string;
}

/** A listing call with the given headers (the cheapest authenticated request). */
function listWith(accountId: string, headers: Record<string, string>): Promise<ApiResponse> {
  return call(server, "GET", `/v3/messages?accountId=${accountId}&count=1`, { headers });
}

function expectUnauthorized(res: ApiResponse): void {
  expect(res.status).toBe(401);
  expect(res.json).toMatchObject({
    status: "Unauthorized",
    statusCode: 401,
    statusMessage: "Missing or invalid credentials",
  });
  expect(res.json.data?.results).toBeUndefined();
}

describe("GET /v3/sdrs/{accountId}/{messageId}", () => {
  it("answers the envelope with apiVersion, accountId, messageId and results", async () => {
    const info = await sendOne(account, { to: "14155550123", body: "sdr envelope" });
    const res = await sdrs(account.accountId, info.messageId);
    expect(res.status).toBe(200);
    expect(res.headers.get("x-request-id")).toMatch(/.+/);
    expect(res.json).toMatchObject({
      status: "QueryCompletedSuccessfully",
      statusCode: 200,
      statusMessage: "Query Completed Successfully",
      statusUri: "",
    });
    expect(Object.keys(res.json.data).sort()).toEqual(["accountId", "apiVersion", "messageId", "results"]);
    expect(res.json.data).toMatchObject({ apiVersion: "v3", accountId: account.accountId, messageId: info.messageId });
    expect(Array.isArray(res.json.data.results)).toBe(true);
  });

  it("records an accepted send as accepted then queued, referenceId on the accepted record only", async () => {
    const info = await sendOne(account, { to: "14155550124", body: "with a reference", referenceId: "track42" });
    const timestamp = await listingTimestampOf(account, info.messageId);
    const res = await sdrs(account.accountId, info.messageId);
    expect(res.json.data.results).toEqual([
      { delta: "00.000", timestamp, referenceId: "track42", status: "accepted", statusDetails: "" },
      {
        delta: expect.stringMatching(DELTA),
        timestamp: expect.stringMatching(LISTING_TIMESTAMP),
        status: "queued",
        statusDetails: "",
      },
    ]);
  });

  it("leaves referenceId out when the send had none", async () => {
    const info = await sendOne(account, { to: "14155550125", body: "no reference" });
    const [accepted, queued] = (await sdrs(account.accountId, info.messageId)).json.data.results;
    expect(accepted).toMatchObject({ status: "accepted", delta: "00.000" });
    expect(accepted).not.toHaveProperty("referenceId");
    expect(queued).toMatchObject({ status: "queued" });
    expect(queued).not.toHaveProperty("referenceId");
  });

  it("shows delta as seconds with three decimals and at least two digits before the point, in time order", async () => {
    const info = await sendOne(account, { to: "14155550126", body: "delta format" });
    const results = (await sdrs(account.accountId, info.messageId)).json.data.results as {
      delta: string;
      timestamp: string;
    }[];
    expect(results.length).toBeGreaterThanOrEqual(2);
    for (const record of results) {
      expect(record.delta).toMatch(DELTA);
      expect(record.timestamp).toMatch(LISTING_TIMESTAMP);
    }
    const deltas = results.map((r) => Number(r.delta));
    expect(deltas).toEqual([...deltas].sort((a, b) => a - b));
    const times = results.map((r) => r.timestamp);
    expect(times).toEqual([...times].sort());
  });

  it("records a rejected entry as one rejected record whose statusDetails is the reason", async () => {
    const infos = await send(account, {
      toArray: ["14155550127", "12", "+14155550127"],
      body: "some rejected",
      bulk: false,
    });
    expect(infos.map((i) => [i.status, i.reason])).toEqual([
      ["accepted", ""],
      ["rejected", "InvalidDestination"],
      ["rejected", "DuplicateDestination"],
    ]);
    for (const info of infos.slice(1)) {
      const res = await sdrs(account.accountId, info.messageId);
      expect(res.status).toBe(200);
      expect(res.json.data.results).toEqual([
        {
          delta: "00.000",
          timestamp: await listingTimestampOf(account, info.messageId),
          status: "rejected",
          statusDetails: info.reason,
        },
      ]);
    }
  });

  it("records a send from a number the account does not own as rejected, FromNotOwned", async () => {
    const info = await sendOne(account, { from: other.numbers[0], to: "14155550128", body: "not mine" });
    expect(info.status).toBe("rejected");
    const results = (await sdrs(account.accountId, info.messageId)).json.data.results;
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({ status: "rejected", statusDetails: "FromNotOwned", delta: "00.000" });
  });

  it("finds the message whatever the case of its id", async () => {
    const info = await sendOne(account, { to: "14155550129", body: "upper case id" });
    const res = await sdrs(account.accountId, info.messageId.toUpperCase());
    expect(res.status).toBe(200);
    expect(res.json.data.results.map((r: { status: string }) => r.status)).toEqual(["accepted", "queued"]);
  });

  describe("unknown messages and other accounts", () => {
    let otherMessage: SendInfo;

    beforeAll(async () => {
      otherMessage = await sendOne(other, { to: "14155550130", body: "the other account's" });
      expect((await sdrs(other.accountId, otherMessage.messageId, other.headers)).status).toBe(200);
    });

    it("an unknown message id is 404 MessageNotFound with the SDR error shape", async () => {
      const res = await sdrs(account.accountId, randomUUID());
      expect(res.status).toBe(404);
      expect(res.json).toMatchObject({
        status: "MessageNotFound",
        statusCode: 404,
        statusMessage: "Message not found",
      });
      expect(res.json.statusUri).toMatch(/MessageNotFound/);
      expect(res.json.data).toEqual({
        apiVersion: "v3",
        results: {
          error: "MessageNotFound",
          errorCode: 404,
          errorMessage: "Message not found",
          errorUrl: expect.stringMatching(/MessageNotFound/),
        },
      });
    });

    it("another account's message id under one's own account is the same 404: existence does not leak", async () => {
      const unknown = await sdrs(account.accountId, randomUUID());
      const foreign = await sdrs(account.accountId, otherMessage.messageId);
      expect(foreign.status).toBe(404);
      expect(foreign.json).toEqual(unknown.json);
      expect(foreign.text).not.toContain(other.accountId);
      expect(foreign.text).not.toContain("the other account's");
    });

    it("a message id that is not a UUID is the same 404", async () => {
      const unknown = await sdrs(account.accountId, randomUUID());
      const res = await sdrs(account.accountId, "not-a-message-id");
      expect(res.status).toBe(404);
      expect(res.json).toEqual(unknown.json);
    });

    it("another account's id in the path is 403 Forbidden, whether or not the message exists", async () => {
      const existing = await sdrs(other.accountId, otherMessage.messageId);
      const missing = await sdrs(other.accountId, randomUUID());
      for (const res of [existing, missing]) {
        expect(res.status).toBe(403);
        expect(res.json).toMatchObject({
          status: "Forbidden",
          statusCode: 403,
          statusMessage: "Credentials do not grant access to this account",
        });
      }
      expect(existing.json).toEqual(missing.json);
      expect(existing.text).not.toContain("the other account's");
      // The same with a message of one's own: the path's account decides.
      const own = await sendOne(account, { to: "14155550131", body: "mine" });
      expect((await sdrs(other.accountId, own.messageId)).status).toBe(403);
    });

    it("no credentials is 401, before anything about the message is looked at", async () => {
      expectUnauthorized(await sdrs(other.accountId, otherMessage.messageId, {}));
      expectUnauthorized(await sdrs(account.accountId, randomUUID(), {}));
    });
  });
});

describe("Authentication", () => {
  it("accepts the apikey header", async () => {
    const res = await listWith(account.accountId, { apikey: account.apiKey });
    expect(res.status).toBe(200);
    expect(res.json.status).toBe("QueryCompletedSuccessfully");
  });

  it("accepts HTTP Basic accountId:key, for listing, SDRs and sending", async () => {
    const auth = { authorization: basic(account.accountId, account.apiKey) };
    expect((await listWith(account.accountId, auth)).status).toBe(200);
    const res = await call(server, "POST", "/v3/messages", {
      headers: { ...auth, "content-type": "application/json" },
      body: { accountId: account.accountId, from: account.numbers[0], to: "14155550140", body: "sent with Basic" },
    });
    expect(res.status).toBe(200);
    expect(res.json.data.messageInfo[0].status).toBe("accepted");
    expect((await sdrs(account.accountId, res.json.data.messageInfo[0].messageId, auth)).status).toBe(200);
  });

  it("accepts both schemes together when both are valid for the same account", async () => {
    const second = await createKey(server, account.accountId);
    const res = await listWith(account.accountId, {
      apikey: account.apiKey,
      authorization: basic(account.accountId, second.key),
    });
    expect(res.status).toBe(200);
  });

  it("refuses both schemes together when they name different accounts, even if each is valid alone", async () => {
    expect((await listWith(other.accountId, { authorization: basic(other.accountId, other.apiKey) })).status).toBe(200);
    expectUnauthorized(
      await listWith(account.accountId, {
        apikey: account.apiKey,
        authorization: basic(other.accountId, other.apiKey),
      }),
    );
    expectUnauthorized(
      await listWith(other.accountId, { apikey: account.apiKey, authorization: basic(other.accountId, other.apiKey) }),
    );
  });

  it("refuses both schemes together when either is invalid", async () => {
    const wrong = "pk_" + "A".repeat(32);
    expectUnauthorized(
      await listWith(account.accountId, { apikey: account.apiKey, authorization: basic(account.accountId, wrong) }),
    );
    expectUnauthorized(
      await listWith(account.accountId, { apikey: wrong, authorization: basic(account.accountId, account.apiKey) }),
    );
  });

  it("refuses Basic whose username is not the key's account", async () => {
    expectUnauthorized(await listWith(account.accountId, { authorization: basic(other.accountId, account.apiKey) }));
    expectUnauthorized(await listWith(account.accountId, { authorization: basic(randomUUID(), account.apiKey) }));
  });

  it("refuses missing, unknown and malformed credentials with 401", async () => {
    expectUnauthorized(await listWith(account.accountId, {}));
    expectUnauthorized(await listWith(account.accountId, { apikey: "pk_" + "z".repeat(32) }));
    expectUnauthorized(await listWith(account.accountId, { apikey: "not a key" }));
    expectUnauthorized(await listWith(account.accountId, { apikey: "" }));
    expectUnauthorized(await listWith(account.accountId, { authorization: `Bearer ${account.apiKey}` }));
    expectUnauthorized(await listWith(account.accountId, { authorization: "Basic !!!" }));
    expectUnauthorized(
      await listWith(account.accountId, { authorization: `Basic ${Buffer.from(account.apiKey).toString("base64")}` }),
    );
  });

  it("checks credentials before the request: no credentials and no accountId is still 401", async () => {
    expectUnauthorized(await call(server, "GET", "/v3/messages"));
    expectUnauthorized(
      await call(server, "POST", "/v3/messages", {
        headers: { "content-type": "application/json" },
        rawBody: "{not json",
      }),
    );
  });

  it("a new key works at once", async () => {
    const fresh = await createKey(server, account.accountId);
    expect((await listWith(account.accountId, { apikey: fresh.key })).status).toBe(200);
    expect((await listWith(account.accountId, { authorization: basic(account.accountId, fresh.key) })).status).toBe(
      200,
    );
  });

  it("a revoked key stops working once the key cache has expired; other keys keep working", async () => {
    const doomed = await createKey(server, account.accountId);
    expect((await listWith(account.accountId, { apikey: doomed.key })).status).toBe(200); // now cached
    await revokeApiKeyByIdOrKey(doomed.id);
    await sleep(CACHE_SECONDS * 1000 + 200);
    expectUnauthorized(await listWith(account.accountId, { apikey: doomed.key }));
    expectUnauthorized(await listWith(account.accountId, { authorization: basic(account.accountId, doomed.key) }));
    expect((await listWith(account.accountId, { apikey: account.apiKey })).status).toBe(200);
  });

  it("an expiring key works until its expiry and not after", async () => {
    const expiresAt = new Date(Date.now() + 1500);
    const expiring = await createKey(server, account.accountId, { expiresAt });
    expect((await listWith(account.accountId, { apikey: expiring.key })).status).toBe(200);
    await sleep(Math.max(0, expiresAt.getTime() - Date.now()) + 100);
    expectUnauthorized(await listWith(account.accountId, { apikey: expiring.key }));
    expectUnauthorized(await listWith(account.accountId, { authorization: basic(account.accountId, expiring.key) }));
  });

  it("records lastUsedAt when a key is used, by either scheme", async () => {
    const viaHeader = await createKey(server, account.accountId);
    const viaBasic = await createKey(server, account.accountId);
    const lastUsed = async (id: string) => (await listApiKeys(account.accountId)).find((k) => k.id === id)!.lastUsedAt;
    expect(await lastUsed(viaHeader.id)).toBeNull();
    expect(await lastUsed(viaBasic.id)).toBeNull();

    const before = Date.now();
    expect((await listWith(account.accountId, { apikey: viaHeader.key })).status).toBe(200);
    expect((await listWith(account.accountId, { authorization: basic(account.accountId, viaBasic.key) })).status).toBe(
      200,
    );
    const after = Date.now();

    for (const id of [viaHeader.id, viaBasic.id]) {
      // Written off the request's critical path: poll briefly.
      let value: Date | null = null;
      for (let i = 0; i < 40 && value === null; i++) {
        value = await lastUsed(id);
        if (value === null) await sleep(50);
      }
      expect(value).toBeInstanceOf(Date);
      expect(value!.getTime()).toBeGreaterThanOrEqual(before - 5);
      expect(value!.getTime()).toBeLessThanOrEqual(after + 5);
    }
  });
});
