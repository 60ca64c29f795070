import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../helpers/server";
import { call, createTestAccount, releaseFactories, type TestAccount } from "../helpers/factories";

let server: RunningServer;
let account: TestAccount;

beforeAll(async () => {
  server = await startServer();
  account = await createTestAccount(server);
});

afterAll(async () => {
  await releaseFactories();
  await server?.stop();
});

const total = async (referenceId: string) =>
  (
    await call(server, "GET", `/v3/messages?accountId=${account.accountId}&referenceId=${referenceId}`, {
      headers: account.headers,
    })
  ).json.data.total;

describe("Idempotency-Key on POST /v3/messages", () => {
  it("returns the first answer again for the same key and body, and sends nothing more", async () => {
    const body = {
      accountId: account.accountId,
      from: account.numbers[0],
      toArray: ["14155550123", "12125551234"],
      body: "once",
      referenceId: "idem1",
    };
    const headers = { ...account.headers, "Idempotency-Key": "order-1001" };
    const first = await call(server, "POST", "/v3/messages", { headers, body });
    const again = await call(server, "POST", "/v3/messages", { headers, body: { ...body } });
    expect(first.status).toBe(200);
    expect(again.status).toBe(200);
    expect(again.json).toEqual(first.json);
    expect(await total("idem1")).toBe(2);
  });

  it("treats the same body with its keys in another order as the same request", async () => {
    const headers = { ...account.headers, "Idempotency-Key": "order-1002" };
    const first = await call(server, "POST", "/v3/messages", {
      headers,
      rawBody: `{"accountId":"${account.accountId}","from":"${account.numbers[0]}","to":"14155550123","body":"x","referenceId":"idem2"}`,
    });
    const again = await call(server, "POST", "/v3/messages", {
      headers,
      rawBody: `{"referenceId":"idem2","body":"x","to":"14155550123","from":"${account.numbers[0]}","accountId":"${account.accountId}"}`,
    });
    expect(again.json.data.messageInfo[0].messageId).toBe(first.json.data.messageInfo[0].messageId);
    expect(await total("idem2")).toBe(1);
  });

  it("answers 409 IdempotencyConflict when the key comes back with another body", async () => {
    const headers = { ...account.headers, "Idempotency-Key": "order-1003" };
    const body = {
      accountId: account.accountId,
      from: account.numbers[0],
      to: "14155550123",
      body: "first",
      referenceId: "idem3",
    };
    await call(server, "POST", "/v3/messages", { headers, body });
    const conflict = await call(server, "POST", "/v3/messages", { headers, body: { ...body, body: "second" } });
    expect(conflict.status).toBe(409);
    expect(conflict.json).toMatchObject({ status: "IdempotencyConflict", statusCode: 409 });
    expect(await total("idem3")).toBe(1);
  });

  it("sends once when the same key arrives many times at once", async () => {
    const headers = { ...account.headers, "Idempotency-Key": "order-1004" };
    const body = {
      accountId: account.accountId,
      from: account.numbers[0],
      to: "14155550123",
      body: "race",
      referenceId: "idem4",
    };
    const answers = await Promise.all(
      Array.from({ length: 12 }, () => call(server, "POST", "/v3/messages", { headers, body })),
    );
    const ids = new Set(answers.map((a) => a.json.data?.messageInfo?.[0]?.messageId));
    expect(answers.map((a) => a.status)).toEqual(Array(12).fill(200));
    expect(ids.size).toBe(1);
    expect(await total("idem4")).toBe(1);
  });

  it("keeps keys apart per account", async () => {
    const other = await createTestAccount(server);
    const mine = await call(server, "POST", "/v3/messages", {
      headers: { ...account.headers, "Idempotency-Key": "shared-key" },
      body: { accountId: account.accountId, from: account.numbers[0], to: "14155550123", body: "a" },
    });
    const theirs = await call(server, "POST", "/v3/messages", {
      headers: { ...other.headers, "Idempotency-Key": "shared-key" },
      body: { accountId: other.accountId, from: other.numbers[0], to: "14155550123", body: "b" },
    });
    expect(theirs.status).toBe(200);
    expect(theirs.json.data.messageInfo[0].messageId).not.toBe(mine.json.data.messageInfo[0].messageId);
  });

  it("refuses a key longer than 255 characters", async () => {
    const res = await call(server, "POST", "/v3/messages", {
      headers: { ...account.headers, "Idempotency-Key": "k".repeat(256) },
      body: { accountId: account.accountId, from: account.numbers[0], to: "14155550123", body: "a" },
    });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ status: "InvalidRequest", data: { field: "Idempotency-Key" } });
  });
});
