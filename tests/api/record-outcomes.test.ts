import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reloadEnv } from "../../lib/env";
import { logger } from "../../lib/log";
import { prepareDatabase } from "../../lib/boot/prepare-database";
import { db, disconnectDb } from "../../lib/db/client";
import { createAccount } from "../../lib/accounts/manage-accounts";
import { provisionNumber } from "../../lib/numbers/manage-numbers";
import { sendMessages } from "../../lib/messaging/send-message";
import { OutcomeRecorder } from "../../lib/delivery/record-outcomes";
import { NumberLeases } from "../../lib/delivery/lease-numbers";
import type { Allocation } from "../../lib/delivery/plan-round";
import type { RoundResult } from "../../lib/delivery/pace-departures";
import { createTestDatabase, type TestDatabase } from "../helpers/test-database";
import { randomNumber } from "../helpers/factories";

// A round's answers, written by the worker's recorder on a real database: what the listing and SDRs show of each
// message afterwards, whatever other messages' answers were recorded beside them.
let database: TestDatabase;
const WORKER = "recorder-test";

beforeAll(async () => {
  database = await createTestDatabase();
  process.env.DATABASE_URL = database.url;
  reloadEnv();
  await prepareDatabase();
});

afterAll(async () => {
  await disconnectDb();
  await database?.drop();
});

function recorder(): OutcomeRecorder {
  return new OutcomeRecorder({
    workerId: WORKER,
    leases: new NumberLeases({ workerId: WORKER, leaseMs: 30_000, maxNumbers: 100 }),
    leaseMs: 30_000,
    validityMs: 3_600_000,
    maxAttempts: 3,
    retryDelaysMs: [1000],
    stopped: () => false,
    log: logger(),
  });
}

/** A two-part message from a number this worker holds; its id and what a round reserved of it. */
async function twoPartMessage(accountId: string, from: string) {
  const { messageInfo } = await sendMessages({
    sender: { kind: "apiKey", accountId, apiKeyId: "test" },
    request: { accountId, from, toArray: [randomNumber()], body: "Your order has shipped. ".repeat(10) },
    requestId: "test",
  });
  const messageId = messageInfo[0]!.messageId;
  expect(messageInfo[0]!.numSegments).toBe(2);
  await db().phoneNumber.update({
    where: { number: from },
    data: { leaseOwner: WORKER, leaseUntil: new Date(Date.now() + 30_000) },
  });
  const row = await db().message.findUniqueOrThrow({ where: { id: messageId } });
  const part = (segmentNumber: number, partsSubmitted: number): Allocation => ({
    message: {
      messageId,
      accountId,
      from,
      to: row.toNumber,
      body: row.body,
      media: [],
      numSegments: 2,
      encoding: "GSM7",
      bulk: false,
      inProgress: partsSubmitted > 0,
      partsSubmitted,
      attempts: 0,
      eligibleAt: null,
      createdAt: row.createdAt.getTime(),
      referenceId: null,
      validUntil: null,
    },
    part: {
      messageId,
      segmentNumber,
      totalSegments: 2,
      concatReference: 1,
      from,
      to: row.toNumber,
      text: "part",
      encoding: "GSM7",
      media: [],
    },
    at: Date.now(),
    holding: 1,
    slot: { before: null, after: null },
  });
  return { messageId, part };
}

const accepted = (allocation: Allocation, at: number): RoundResult => ({
  allocation,
  at,
  result: { ok: true, carrierMessageId: `C-${allocation.part.messageId}-${allocation.part.segmentNumber}` },
});

describe("the worker's record of a round's answers", () => {
  it("leaves a message whose two parts went in one round sent with both parts counted, whatever else the round held", async () => {
    const account = await createAccount({ name: "recorder", rateLimitPerSecond: 100 });
    const slow = (await provisionNumber({ accountId: account.id, number: `+${randomNumber()}`, actor: "cli" })).number;
    const fast = (await provisionNumber({ accountId: account.id, number: `+${randomNumber()}`, actor: "cli" })).number;
    // One message's second part (its first left in an earlier round), and both parts of another's from a faster
    // number, answered in the same instant: the first message's last change and the second's are the same.
    const earlier = await twoPartMessage(account.id, slow);
    const both = await twoPartMessage(account.id, fast);
    await db().message.update({ where: { id: earlier.messageId }, data: { status: "sending", partsSubmitted: 1 } });
    await db().message.update({ where: { id: both.messageId }, data: { status: "sending" } });
    const at = Date.now();
    await recorder().recordPersistently([
      accepted(earlier.part(2, 1), at),
      accepted(both.part(1, 0), at),
      accepted(both.part(2, 0), at),
    ]);

    for (const id of [earlier.messageId, both.messageId]) {
      const message = await db().message.findUniqueOrThrow({ where: { id } });
      expect({ id, status: message.status, partsSubmitted: message.partsSubmitted }).toEqual({
        id,
        status: "sent",
        partsSubmitted: 2,
      });
    }
    const records = await db().sdr.findMany({ where: { messageId: both.messageId }, orderBy: { id: "asc" } });
    expect(records.map((r) => [r.status, r.segmentNumber])).toEqual([
      ["accepted", null],
      ["queued", null],
      ["message_sent", 1],
      ["message_sent", 2],
      ["wait_dlr", null],
    ]);
  });
});
