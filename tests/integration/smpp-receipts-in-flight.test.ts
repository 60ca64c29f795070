import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../helpers/server";
import { createTestDatabase, type TestDatabase } from "../helpers/test-database";
import {
  bindTo,
  call,
  createTestAccount,
  randomNumber,
  releaseFactories,
  type TestAccount,
} from "../helpers/factories";
import { has, statuses, waitForSdrs, waitUntil } from "../helpers/wait-for";
import { db } from "../../lib/db/client";
import { TestSmsc } from "./helpers/test-smsc";

// Parts handed to the SMSC in one round are recorded as the SMSC answers them, not once the round's last answer is
// in: a slow answer for one message holds back neither the other messages' `sent` status nor their delivery
// receipts (which wait for their part's record, and the SMSC for its deliver_sm_resp meanwhile).
let smsc: TestSmsc;
let database: TestDatabase;
let server: RunningServer;
let account: TestAccount;

const SLOW_ANSWER_MS = 4000;

beforeAll(async () => {
  smsc = await TestSmsc.start();
  database = await createTestDatabase();
  server = await startServer({
    database,
    env: {
      PARLEY_WORKER: "true",
      WORKER_POLL_MS: "50",
      ...smsc.carrierEnv,
    },
  });
  account = await createTestAccount(server, { numbers: 2, rateLimitPerSecond: 50 });
});

afterAll(async () => {
  await releaseFactories();
  await server?.stop();
  await database?.drop();
  await smsc?.close();
});

async function scheduled(from: string, body: string): Promise<string> {
  const res = await call(server, "POST", "/v3/messages", {
    headers: account.headers,
    body: {
      accountId: account.accountId,
      from,
      to: randomNumber(),
      body,
      sendAt: new Date(Date.now() + 10 * 60_000).toISOString().replace("Z", "+00:00"),
    },
  });
  expect(res.status, res.text).toBe(200);
  return res.json.data.messageInfo[0].messageId as string;
}

async function listingStatus(messageId: string): Promise<string> {
  const res = await call(server, "GET", `/v3/messages?accountId=${account.accountId}&messageId=${messageId}`, {
    headers: account.headers,
  });
  return res.json.data.results[0].status as string;
}

describe("a round whose SMSC answers one part slowly", () => {
  it("records the other messages' answers and receipts while that answer is still awaited", async () => {
    const [slowFrom, quickFrom] = account.numbers as [string, string];
    smsc.answer = (submit) => (submit.sourceAddr === slowFrom ? { delayMs: SLOW_ANSWER_MS } : {});
    const slow = await scheduled(slowFrom, "Your order shipped");
    const quick = await scheduled(quickFrom, "Your table is ready");
    // Both come due at the same moment (as the passing of time would make them): they leave in one round.
    await bindTo(server);
    await db().message.updateMany({ where: { id: { in: [slow, quick] } }, data: { sendAt: new Date() } });

    await waitUntil("both submits at the SMSC", () => smsc.submits.length === 2, 10_000, 20);
    const answeredAt = Date.now();
    // The quick message is listed sent while the slow one's answer is still outstanding.
    await waitForSdrs(server, account, quick, has("wait_dlr"));
    expect(smsc.outstanding).toBe(1);
    expect(await listingStatus(quick)).toBe("sent");
    expect(await listingStatus(slow)).toBe("sending");

    // Its receipt is taken (stored, then acknowledged) before the slow answer is given.
    const status = await smsc.deliver({
      source_addr: smsc.submits.find((s) => s.sourceAddr === quickFrom)!.destinationAddr,
      destination_addr: quickFrom,
      esm_class: 0x04,
      short_message:
        "id:M000001 sub:001 dlvrd:001 submit date:2611290100 done date:2611290100 stat:DELIVRD err:000 text:Your table",
    });
    expect(status).toBe(0);
    expect(smsc.outstanding).toBe(1);
    expect(Date.now() - answeredAt).toBeLessThan(SLOW_ANSWER_MS);
    expect(await listingStatus(quick)).toBe("delivered");
    expect(statuses(await waitForSdrs(server, account, quick, has("dlr_received")))).toEqual([
      "accepted",
      "scheduled",
      "queued",
      "sending",
      "message_sent",
      "wait_dlr",
      "delivered",
      "dlr_received",
    ]);

    // The slow answer, once given, is recorded too.
    await waitForSdrs(server, account, slow, has("wait_dlr"));
    expect(smsc.outstanding).toBe(0);
    expect(await listingStatus(slow)).toBe("sent");
  });
});
