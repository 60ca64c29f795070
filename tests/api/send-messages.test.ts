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

describe("POST /v3/messages", () => {
  it("accepts a single-destination SMS and answers with the seed's envelope", async () => {
    const res = await call(server, "POST", "/v3/messages", {
      headers: account.headers,
      body: {
        accountId: account.accountId,
        from: account.numbers[0],
        to: "14155550123",
        body: "Hello there",
        referenceId: "order42",
      },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-request-id")).toMatch(/.+/);
    expect(res.json).toMatchObject({
      status: "MessageCreateSuccessful",
      statusCode: 200,
      statusMessage: "Message Create Successful",
      statusUri: "",
    });
    const data = res.json.data;
    expect(data).toMatchObject({
      apiVersion: "v3",
      accountId: account.accountId,
      from: account.numbers[0],
      to: "14155550123",
      body: "Hello there",
      referenceId: "order42",
      bulk: false,
      conversational: false,
      optLogic: false,
    });
    expect(data.messageInfo).toHaveLength(1);
    const [info] = data.messageInfo;
    expect(info).toMatchObject({
      to: "+14155550123",
      body: "Hello there",
      numSegments: 1,
      status: "accepted",
      optStatus: "",
    });
    expect(info.messageId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(info.dateCreated).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+0000$/);
    expect(data.error_code).toBeUndefined();
  });

  it("sends one message per destination, in request order, bulk by default for a group", async () => {
    const res = await call(server, "POST", "/v3/messages", {
      headers: account.headers,
      body: {
        accountId: account.accountId,
        from: `+${account.numbers[0]}`,
        toArray: ["14155550123", "+12125551234", "12"],
        body: "Hi all",
      },
    });
    expect(res.status).toBe(200);
    expect(res.json.data.bulk).toBe(true);
    const infos = res.json.data.messageInfo;
    expect(infos.map((i: { to: string }) => i.to)).toEqual(["+14155550123", "+12125551234", "12"]);
    expect(infos.map((i: { status: string }) => i.status)).toEqual(["accepted", "accepted", "rejected"]);
    expect(infos[2].reason).toBe("InvalidDestination");
    expect(new Set(infos.map((i: { messageId: string }) => i.messageId)).size).toBe(3);
  });

  it("rejects a repeated destination once, reason DuplicateDestination", async () => {
    const res = await call(server, "POST", "/v3/messages", {
      headers: account.headers,
      body: {
        accountId: account.accountId,
        from: account.numbers[0],
        toArray: ["14155550123", "+14155550123"],
        body: "x",
        bulk: false,
      },
    });
    expect(res.json.data.bulk).toBe(false);
    expect(res.json.data.messageInfo.map((i: { status: string; reason: string }) => [i.status, i.reason])).toEqual([
      ["accepted", ""],
      ["rejected", "DuplicateDestination"],
    ]);
  });

  it("answers a from number of another account inside a 200 envelope, every entry rejected", async () => {
    const other = await createTestAccount(server);
    const res = await call(server, "POST", "/v3/messages", {
      headers: account.headers,
      body: {
        accountId: account.accountId,
        from: other.numbers[0],
        toArray: ["14155550123", "12125551234"],
        body: "x",
      },
    });
    expect(res.status).toBe(200);
    expect(res.json.status).toBe("MessageCreateSuccessful");
    expect(res.json.data).toMatchObject({
      error_code: 1001,
      error: "FromNotOwned",
      error_message: "'from' does not belong to the account",
    });
    for (const info of res.json.data.messageInfo)
      expect(info).toMatchObject({ status: "rejected", reason: "FromNotOwned" });
  });

  it("counts segments with the alphabet that needs the fewest", async () => {
    const send = (body: string) =>
      call(server, "POST", "/v3/messages", {
        headers: account.headers,
        body: { accountId: account.accountId, from: account.numbers[0], to: "14155550123", body },
      }).then((r) => r.json.data.messageInfo[0].numSegments);
    expect(await send("a".repeat(160))).toBe(1);
    expect(await send("a".repeat(161))).toBe(2);
    expect(await send("é".repeat(160))).toBe(1); // é is in GSM7
    expect(await send("á".repeat(140))).toBe(1); // Latin-1
    expect(await send("á".repeat(141))).toBe(2);
    expect(await send("😀".repeat(35))).toBe(1); // UCS-2, a surrogate pair each
    expect(await send("😀".repeat(36))).toBe(2);
  });

  it("sends MMS with media only, as one segment of type mms", async () => {
    const res = await call(server, "POST", "/v3/messages", {
      headers: account.headers,
      body: {
        accountId: account.accountId,
        from: account.numbers[0],
        to: "14155550123",
        media: ["https://example.com/cat.jpg"],
      },
    });
    expect(res.status).toBe(200);
    expect(res.json.data.messageInfo[0]).toMatchObject({ status: "accepted", numSegments: 1, body: "" });
    const list = await call(
      server,
      "GET",
      `/v3/messages?accountId=${account.accountId}&messageId=${res.json.data.messageInfo[0].messageId}`,
      {
        headers: account.headers,
      },
    );
    expect(list.json.data.results[0]).toMatchObject({ messageType: "mms", media: ["https://example.com/cat.jpg"] });
  });

  it("persists the message with its accepted and queued SDRs before answering", async () => {
    const res = await call(server, "POST", "/v3/messages", {
      headers: account.headers,
      body: {
        accountId: account.accountId,
        from: account.numbers[1],
        to: "14155550123",
        body: "persisted",
        referenceId: "ref7",
      },
    });
    const id = res.json.data.messageInfo[0].messageId;
    const sdrs = await call(server, "GET", `/v3/sdrs/${account.accountId}/${id}`, { headers: account.headers });
    expect(sdrs.status).toBe(200);
    expect(sdrs.json.data.results.map((r: { status: string }) => r.status)).toEqual(["accepted", "queued"]);
    expect(sdrs.json.data.results[0]).toMatchObject({ delta: "00.000", referenceId: "ref7", statusDetails: "" });
  });

  it("marks a text bulk on its own once it went to more than 20 destinations within 10 minutes", async () => {
    const send = (toArray: string[], bulk?: boolean) =>
      call(server, "POST", "/v3/messages", {
        headers: account.headers,
        body: { accountId: account.accountId, from: account.numbers[0], toArray, body: "Flash sale today only", bulk },
      });
    const twenty = Array.from({ length: 20 }, (_, i) => `1212555${String(1000 + i)}`);
    expect((await send(twenty, false)).json.data.bulk).toBe(false);
    const more = await send(["14155550123"], false);
    expect(more.json.data.bulk).toBe(true);
    const id = more.json.data.messageInfo[0].messageId;
    const sdrs = await call(server, "GET", `/v3/sdrs/${account.accountId}/${id}`, { headers: account.headers });
    expect(sdrs.json.data.results[1]).toMatchObject({
      status: "queued",
      statusDetails: expect.stringMatching(/more than 20 destinations/),
    });
  });
});
