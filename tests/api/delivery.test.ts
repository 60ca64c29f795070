import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../helpers/server";
import { call, createTestAccount, releaseFactories, type TestAccount } from "../helpers/factories";
import { has, sdrTime, statuses, waitForSdrs } from "../helpers/wait-for";
import { parley } from "../helpers/cli";
import { db } from "../../lib/db/client";

// The delivery engine end to end: the API accepts, the worker paces and submits to the simulator carrier, receipts
// come back, and every step is an SDR a client can read.
let server: RunningServer;
let account: TestAccount;

beforeAll(async () => {
  server = await startServer({
    env: {
      PARLEY_WORKER: "true",
      WORKER_POLL_MS: "50",
      SIMULATOR_RECEIPT_DELAY_MS: "200",
      RETRY_DELAYS_SECONDS: "0.5",
      MAX_SUBMIT_ATTEMPTS: "3",
      MESSAGE_VALIDITY_HOURS: "0.001", // 3.6 s
    },
  });
  account = await createTestAccount(server, { numbers: 3, rateLimitPerSecond: 50 });
});

afterAll(async () => {
  await releaseFactories();
  await server?.stop();
});

async function send(body: Record<string, unknown>): Promise<string[]> {
  const res = await call(server, "POST", "/v3/messages", {
    headers: account.headers,
    body: { accountId: account.accountId, from: account.numbers[0], ...body },
  });
  expect(res.status).toBe(200);
  return res.json.data.messageInfo.map((i: { messageId: string }) => i.messageId);
}

async function listingStatus(messageId: string): Promise<string> {
  const res = await call(server, "GET", `/v3/messages?accountId=${account.accountId}&messageId=${messageId}`, {
    headers: account.headers,
  });
  return res.json.data.results[0].status;
}

describe("a message through the simulator carrier", () => {
  it("is delivered, with every step of the lifecycle recorded in order", async () => {
    const [id] = await send({ to: "14155550123", body: "Hello", referenceId: "life1" });
    const records = await waitForSdrs(server, account, id!, has("dlr_received"));
    expect(statuses(records)).toEqual([
      "accepted",
      "queued",
      "sending",
      "message_sent",
      "wait_dlr",
      "delivered",
      "dlr_received",
    ]);
    const byStatus = Object.fromEntries(records.map((r) => [r.status, r]));
    expect(byStatus.sending!.segmentNumber).toBe(1);
    expect(byStatus.message_sent!.segmentNumber).toBe(1);
    expect(byStatus.delivered).toMatchObject({ segmentNumber: 1, referenceId: "life1" });
    expect(byStatus.delivered!.statusDetails).toMatch(/stat:DELIVRD err:000/);
    expect(byStatus.dlr_received).toMatchObject({ segmentNumber: 1, statusDetails: "err:000" });
    expect(await listingStatus(id!)).toBe("delivered");
  });

  it("reports the carrier's outcomes: undelivered, failed, rejected at submit", async () => {
    const [undelivered, failed, rejected] = await send({
      toArray: ["14155550000", "14155550001", "14155550004"],
      body: "x",
      bulk: false,
    });
    await waitForSdrs(server, account, undelivered!, has("dlr_received"));
    await waitForSdrs(server, account, failed!, has("dlr_received"));
    const rejectedRecords = await waitForSdrs(server, account, rejected!, has("rejected"));
    expect(await listingStatus(undelivered!)).toBe("undelivered");
    expect(await listingStatus(failed!)).toBe("failed");
    expect(await listingStatus(rejected!)).toBe("rejected");
    expect(rejectedRecords.find((r) => r.status === "rejected")!.statusDetails).toMatch(/ESME_RINVDSTADR/);
  });

  it("retries a temporary submit error and then delivers", async () => {
    const [id] = await send({ to: "14155550003", body: "throttled once" });
    const records = await waitForSdrs(server, account, id!, has("dlr_received"));
    expect(statuses(records)).toEqual([
      "accepted",
      "queued",
      "sending",
      "retry",
      "sending",
      "message_sent",
      "wait_dlr",
      "delivered",
      "dlr_received",
    ]);
    expect(records.find((r) => r.status === "retry")!.statusDetails).toMatch(/ESME_RTHROTTLED/);
  });

  it("expires a message whose receipt never comes", async () => {
    const [id] = await send({ to: "14155550002", body: "no receipt" });
    const records = await waitForSdrs(server, account, id!, has("expired"), 20_000);
    expect(statuses(records)).toEqual(["accepted", "queued", "sending", "message_sent", "wait_dlr", "expired"]);
    expect(await listingStatus(id!)).toBe("expired");
  });

  it("sends the parts of a long message one second apart, each with its receipt", async () => {
    const [id] = await send({ from: account.numbers[1], to: "14155550123", body: "a".repeat(200) });
    const records = await waitForSdrs(
      server,
      account,
      id!,
      (r) => r.filter((x) => x.status === "dlr_received").length === 2,
    );
    const sent = records.filter((r) => r.status === "message_sent");
    expect(sent.map((r) => r.segmentNumber)).toEqual([1, 2]);
    expect(sdrTime(sent[1]!) - sdrTime(sent[0]!)).toBeGreaterThanOrEqual(1000);
    expect(
      records
        .filter((r) => r.status === "delivered")
        .map((r) => r.segmentNumber)
        .sort(),
    ).toEqual([1, 2]);
    expect(await listingStatus(id!)).toBe("delivered");
  });

  it("delivers a burst from hundreds of numbers at once, more than a transaction records, each text once", async () => {
    // 600 numbers due at once (texts of their own, to destinations the simulator delivers to): the worker reserves a
    // round in transactions of 400 parts and records its answers in transactions of 200, so that none holds the
    // database's write lock for long.
    const many = await createTestAccount(server, { numbers: 600, rateLimitPerSecond: 2000 });
    // All sent at once, so that the worker finds hundreds of numbers ready together.
    const sent = await Promise.all(
      many.numbers.map((from, i) =>
        call(server, "POST", "/v3/messages", {
          headers: many.headers,
          body: { accountId: many.accountId, from, to: `1415555${1000 + i}`, body: `burst ${i}` },
        }),
      ),
    );
    const ids: string[] = sent.map((res) => res.json.data.messageInfo[0].messageId);
    const delivered = async () =>
      (
        await call(server, "GET", `/v3/messages?accountId=${many.accountId}&status=delivered&count=1`, {
          headers: many.headers,
        })
      ).json.data.total as number;
    const deadline = Date.now() + 30_000;
    while ((await delivered()) < ids.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));
    expect(await delivered()).toBe(ids.length);
    // Each message left once: one part, one `message_sent` and one receipt.
    const parts = await db().messagePart.groupBy({
      by: ["messageId"],
      where: { messageId: { in: ids } },
      _count: true,
    });
    expect(parts).toHaveLength(ids.length);
    expect(parts.every((p) => p._count === 1)).toBe(true);
    for (const status of ["sending", "message_sent", "delivered"])
      expect(await db().sdr.count({ where: { accountId: many.accountId, status } }), status).toBe(ids.length);
  }, 60_000);

  it("lets at most one text a second leave one number, in the order they were accepted", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++)
      ids.push(...(await send({ from: account.numbers[2], to: "14155550123", body: `paced ${i}` })));
    const times: number[] = [];
    for (const id of ids) {
      const records = await waitForSdrs(server, account, id, has("message_sent"), 20_000);
      times.push(sdrTime(records.find((r) => r.status === "message_sent")!));
    }
    for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(1000);
  });
});

describe("inbound messages", () => {
  it("are stored, listed as inbound with an empty status, and have a received record", async () => {
    const { stdout } = await parley(
      ["inbound", "--from", "+14155550123", "--to", `+${account.numbers[0]}`, "--body", "Hi, it's me", "--json"],
      server.database.url,
    );
    const received = JSON.parse(stdout);
    expect(received.accountId).toBe(account.accountId);
    const res = await call(server, "GET", `/v3/messages?accountId=${account.accountId}&direction=inbound`, {
      headers: account.headers,
    });
    const message = res.json.data.results.find((m: { messageId: string }) => m.messageId === received.messageId);
    expect(message).toMatchObject({
      direction: "inbound",
      status: "",
      from: "14155550123",
      to: account.numbers[0],
      body: "Hi, it's me",
    });
    const sdrs = await call(server, "GET", `/v3/sdrs/${account.accountId}/${received.messageId}`, {
      headers: account.headers,
    });
    expect(statuses(sdrs.json.data.results)).toEqual(["received"]);
  });

  it("to a number no account holds is refused by the CLI", async () => {
    await expect(
      parley(["inbound", "--from", "+14155550123", "--to", "+13125550188", "--body", "lost"], server.database.url),
    ).rejects.toMatchObject({ stderr: expect.stringMatching(/not provisioned to any account/) });
  });
});
