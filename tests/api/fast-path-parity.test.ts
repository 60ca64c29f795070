import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { request } from "node:http";
import { startServer, type RunningServer } from "../helpers/server";
import { call, createTestAccount, releaseFactories, type ApiResponse, type TestAccount } from "../helpers/factories";
import { rawRequest, type RawResponse } from "../helpers/raw-http";

// server.ts hands /v3/* straight to the app/v3 route handler exports; with PARLEY_FAST_PATH=false the same
// requests go through Next's own pipeline. A client must not be able to tell the two apart.
let fast: RunningServer;
let viaNext: RunningServer;
let account: TestAccount;

beforeAll(async () => {
  fast = await startServer();
  viaNext = await startServer({ database: fast.database, env: { PARLEY_FAST_PATH: "false" } });
  account = await createTestAccount(fast);
});

afterAll(async () => {
  await releaseFactories();
  await viaNext?.stop();
  await fast?.stop();
});

const VOLATILE = /("(?:messageId|dateCreated)":")[^"]+"/g;

function comparable(res: ApiResponse, server: RunningServer) {
  return {
    status: res.status,
    contentType: res.headers.get("content-type"),
    hasRequestId: Boolean(res.headers.get("x-request-id")),
    body: res.text.replaceAll(server.baseUrl, "BASE").replace(VOLATILE, '$1…"'),
  };
}

describe("the /v3 fast path and Next's pipeline answer alike", () => {
  const cases: [
    string,
    string,
    (a: TestAccount) => { headers?: Record<string, string>; body?: unknown; rawBody?: string },
  ][] = [
    [
      "POST",
      "/v3/messages",
      (a) => ({
        headers: a.headers,
        body: { accountId: a.accountId, from: a.numbers[0], toArray: ["14155550123", "1"], body: "parity" },
      }),
    ],
    ["POST", "/v3/messages", (a) => ({ headers: a.headers, rawBody: "{not json" })],
    ["POST", "/v3/messages", (a) => ({ headers: a.headers, rawBody: "" })],
    ["POST", "/v3/messages", (a) => ({ headers: a.headers, body: { accountId: a.accountId, from: a.numbers[0] } })],
    ["POST", "/v3/messages", () => ({ body: {} })],
    ["GET", "/v3/messages?count=abc", (a) => ({ headers: a.headers })],
    ["PUT", "/v3/messages", (a) => ({ headers: a.headers, body: {} })],
    ["DELETE", "/v3/messages", () => ({})],
    ["GET", "/v3/nowhere", () => ({})],
    ["POST", "/v3", () => ({})],
    [
      "GET",
      "/v3/sdrs/00000000-0000-4000-8000-000000000000/00000000-0000-4000-8000-000000000000",
      (a) => ({ headers: a.headers }),
    ],
    ["GET", "/v3/numbers", (a) => ({ headers: a.headers })],
    ["GET", "/v3/numbers?accountId=not-a-uuid&count=5", (a) => ({ headers: a.headers })],
    // Provisioning the account's own number again answers the same whichever path serves it.
    [
      "POST",
      "/v3/numbers",
      (a) => ({ headers: a.headers, body: { accountId: a.accountId, number: `+${a.numbers[0]}` } }),
    ],
    ["POST", "/v3/numbers", (a) => ({ headers: a.headers, body: { accountId: a.accountId, number: "+1555" } })],
    ["POST", "/v3/numbers", (a) => ({ headers: a.headers, rawBody: "" })],
    ["PUT", "/v3/numbers", () => ({})],
    ["GET", "/v3/numbers/14155550199", () => ({})],
    ["DELETE", "/v3/numbers/14155550199", (a) => ({ headers: a.headers })],
  ];

  for (const [method, path, make] of cases) {
    it(`${method} ${path}`, async () => {
      const options = make(account);
      const a = await call(fast, method, path, options);
      const b = await call(viaNext, method, path, options);
      expect(comparable(a, fast)).toEqual(comparable(b, viaNext));
    });
  }

  it("DELETE /v3/numbers/{number} of a number the account does not hold, in either TN form", async () => {
    for (const number of ["14155550199", "%2B14155550199", "+14155550199"]) {
      const path = `/v3/numbers/${number}?accountId=${account.accountId}`;
      const a = await call(fast, "DELETE", path, { headers: account.headers });
      const b = await call(viaNext, "DELETE", path, { headers: account.headers });
      expect(a.status).toBe(404);
      expect(comparable(a, fast)).toEqual(comparable(b, viaNext));
    }
  });

  it("GET listing and SDRs of the same data", async () => {
    const sent = await call(fast, "POST", "/v3/messages", {
      headers: account.headers,
      body: { accountId: account.accountId, from: account.numbers[0], to: "14155550123", body: "listed" },
    });
    const id = sent.json.data.messageInfo[0].messageId;
    for (const path of [
      `/v3/messages?accountId=${account.accountId}&count=5`,
      `/v3/sdrs/${account.accountId}/${id}`,
      `/v3/numbers?accountId=${account.accountId}&count=1&start=1`,
    ]) {
      const a = await call(fast, "GET", path, { headers: account.headers });
      const b = await call(viaNext, "GET", path, { headers: account.headers });
      expect(a.status).toBe(200);
      expect(a.text).toEqual(b.text);
    }
  });

  it("a body that arrives in pieces, cut inside a character, is read whole on both paths", async () => {
    const text = `piecewise ${"é😀".repeat(20)}`;
    const json = Buffer.from(
      JSON.stringify({ accountId: account.accountId, from: account.numbers[0], to: "14155550124", body: text }),
    );
    // Inside the first emoji's four bytes.
    const cut = json.indexOf(Buffer.from("😀")) + 2;
    const send = (server: RunningServer) =>
      new Promise<{ status: number; json: { data: { messageInfo: { messageId: string }[] } } }>((resolve, reject) => {
        const req = request(`${server.baseUrl}/v3/messages`, {
          method: "POST",
          headers: { ...account.headers, "content-type": "application/json", "transfer-encoding": "chunked" },
        });
        req.on("response", (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (chunk: Buffer) => chunks.push(chunk));
          res.on("end", () =>
            resolve({ status: res.statusCode ?? 0, json: JSON.parse(Buffer.concat(chunks).toString()) }),
          );
        });
        req.on("error", reject);
        req.write(json.subarray(0, cut));
        setTimeout(() => req.end(json.subarray(cut)), 50);
      });
    for (const server of [fast, viaNext]) {
      const sent = await send(server);
      expect(sent.status).toBe(200);
      const id = sent.json.data.messageInfo[0]!.messageId;
      const listed = await call(server, "GET", `/v3/messages?accountId=${account.accountId}&count=50`, {
        headers: account.headers,
      });
      const stored = (listed.json.data.results as { messageId: string; body: string }[]).find(
        (m) => m.messageId === id,
      );
      expect(stored?.body).toBe(text);
    }
  });

  // What no client library sends: raw methods, path bytes and bodies, answered alike whichever path serves them.
  const hostile: [string, string, (a: TestAccount) => { headers?: Record<string, string>; body?: string }][] = [
    ["GET", "/v3/sdrs/{account}/%ZZ", (a) => ({ headers: a.headers })],
    ["GET", "/v3/sdrs/%E2%82/x", (a) => ({ headers: a.headers })],
    ["DELETE", "/v3/numbers/%C3%28", (a) => ({ headers: a.headers })],
    ["GET", "/v3/foo%ZZ", () => ({})],
    ["GET", "/v3/%", () => ({})],
    ["POST", "/v3/messages%", (a) => ({ headers: a.headers, body: "{}" })],
    ["GET", "/v3/messages?accountId={account}&body=%00", (a) => ({ headers: a.headers })],
    ["GET", "/v3/./messages?accountId={account}&count=1", (a) => ({ headers: a.headers })],
    ["GET", "/v3/x/../messages?accountId={account}&count=1", (a) => ({ headers: a.headers })],
    ["GET", "/v3/%2e/messages?accountId={account}&count=1", (a) => ({ headers: a.headers })],
    ["GET", "/v3/%6Dessages?accountId={account}&count=1", (a) => ({ headers: a.headers })],
    ["GET", "/v3/messages#fragment", (a) => ({ headers: a.headers })],
    ["GET", "/v3/messages/?accountId={account}&count=1", (a) => ({ headers: a.headers })],
    ["GET", "/v3\\numbers?accountId={account}", (a) => ({ headers: a.headers })],
    ["GET", "/v3//sdrs/{account}//x/", (a) => ({ headers: a.headers })],
    ["GET", "/v3/..", () => ({})],
    ["GET", "/v3/sdrs/{account}/a%2Fb", (a) => ({ headers: a.headers })],
    ["TRACE", "/v3/messages", () => ({})],
    ["PROPFIND", "/v3/messages", () => ({})],
    ["OPTIONS", "/v3/sdrs/a/b", () => ({})],
    ["OPTIONS", "*", () => ({})],
    ["POST", "/v3/openapi.json", () => ({ body: "{}" })],
    ["PATCH", "/v3/openapi.json", () => ({})],
    ["POST", "/v3/messages", (a) => ({ headers: a.headers, body: `{"x":${"[".repeat(5000)}${"]".repeat(5000)}}` })],
    ["POST", "/v3/numbers", (a) => ({ headers: a.headers, body: `{"accountId":"${a.accountId}","number":"\\u0000"}` })],
  ];

  function rawComparable(res: RawResponse, server: RunningServer) {
    return {
      status: res.status,
      contentType: res.headers["content-type"],
      hasRequestId: Boolean(res.headers["x-request-id"]),
      body: res.text.replaceAll(server.baseUrl, "BASE").replace(VOLATILE, '$1…"'),
    };
  }

  for (const [method, path, make] of hostile) {
    it(`${method} ${path.slice(0, 60)} (raw)`, async () => {
      const options = { method, path: path.replaceAll("{account}", account.accountId), ...make(account) };
      const a = await rawRequest(fast, options);
      const b = await rawRequest(viaNext, options);
      expect(a.status, a.text).toBeLessThan(500);
      expect(a.json, a.text).toMatchObject({ statusCode: a.status });
      expect(rawComparable(a, fast)).toEqual(rawComparable(b, viaNext));
    });
  }

  it("GET /api/health answers 200 with the database reachable (through Next)", async () => {
    const res = await call(fast, "GET", "/api/health");
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ status: "ok", database: { ok: true, provider: fast.database.provider } });
    expect(res.headers.get("x-request-id")).toBeTruthy();
  });
});
