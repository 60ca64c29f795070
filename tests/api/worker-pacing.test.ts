import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { reloadEnv } from "../../lib/env";
import { prepareDatabase } from "../../lib/boot/prepare-database";
import { db, disconnectDb } from "../../lib/db/client";
import { createAccount } from "../../lib/accounts/manage-accounts";
import { provisionNumber } from "../../lib/numbers/manage-numbers";
import { sendMessages } from "../../lib/messaging/send-message";
import { DeliveryWorker } from "../../lib/delivery/delivery-worker";
import { createSimulatorCarrier } from "../../lib/carriers/simulator/simulator-carrier";
import type { Carrier, OutboundPart } from "../../lib/carriers/carrier";
import { createTestDatabase, type TestDatabase } from "../helpers/test-database";
import { randomNumber } from "../helpers/factories";

// The worker's pacing on a real database with an injected clock: what leaves when, over minutes of simulated time,
// without waiting for them. The carrier is the built-in simulator, with each submit's (simulated) time recorded.
let database: TestDatabase;
let now: number;
let sent: { part: OutboundPart; at: number }[];
let worker: DeliveryWorker;

const NY_10AM = Date.UTC(2026, 10, 23, 15, 0, 0); // 10:00 in New York, 07:00 in Los Angeles

function recording(carrier: Carrier): Carrier {
  return {
    ...carrier,
    name: carrier.name,
    submit: (part, departure) =>
      carrier.submit(part, {
        leave: () => departure?.leave(),
        left: () => {
          sent.push({ part, at: now });
          departure?.left();
        },
      }),
  };
}

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

beforeEach(async () => {
  now = NY_10AM;
  sent = [];
  worker = new DeliveryWorker({
    carrier: recording(createSimulatorCarrier({ receiptDelayMs: 3_600_000 })),
    clock: () => now,
    pollMs: 0,
    workerId: `test-${Math.random()}`,
  });
  // Each test starts from an empty queue: nothing of an earlier test is left to send.
  await db().message.updateMany({ where: { status: { in: ["queued", "sending"] } }, data: { status: "rejected" } });
});

async function run(seconds: number, stepMs = 50): Promise<void> {
  const end = now + seconds * 1000;
  while (now < end) {
    await worker.tick();
    now += stepMs;
  }
  await worker.stop();
}

async function account(numbers: number, rate = 10) {
  const created = await createAccount({ name: "pacing", rateLimitPerSecond: rate, timeZone: "America/New_York" });
  const list: string[] = [];
  for (let i = 0; i < numbers; i++)
    list.push((await provisionNumber({ accountId: created.id, number: `+${randomNumber()}`, actor: "cli" })).number);
  return { accountId: created.id, numbers: list };
}

async function send(accountId: string, from: string, to: string[], body: string, bulk?: boolean) {
  const { messageInfo } = await sendMessages({
    sender: { kind: "apiKey", accountId, apiKeyId: "test" },
    request: { accountId, from, toArray: to, body, bulk },
    requestId: "test",
  });
  return messageInfo.map((i) => i.messageId);
}

describe("the delivery worker's pacing (injected clock, real database)", () => {
  it("sends a number's backlog one segment a second, in order", async () => {
    const a = await account(1);
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) ids.push(...(await send(a.accountId, a.numbers[0]!, ["14155550123"], `m${i}`, false)));
    await run(8);
    expect(sent.map((s) => s.part.messageId)).toEqual(ids);
    expect(sent.map((s) => s.at - NY_10AM)).toEqual([0, 1000, 2000, 3000, 4000, 5000]);
  });

  it("sends past messages waiting for a retry, looking four deep into a number's queue", async () => {
    const a = await account(1);
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) ids.push(...(await send(a.accountId, a.numbers[0]!, ["14155550123"], `r${i}`, false)));
    // The three oldest wait an hour for a retry after a temporary error.
    await db().message.updateMany({
      where: { id: { in: ids.slice(0, 3) } },
      data: { nextAttemptAt: new Date(NY_10AM + 3600_000), attempts: 1 },
    });
    await run(4);
    // Each round reads the first four of the queue: the fourth leaves, then the fifth takes its place, then the sixth.
    expect(sent.map((s) => s.part.messageId)).toEqual(ids.slice(3));
    expect(sent.map((s) => s.at - NY_10AM)).toEqual([0, 1000, 2000]);
  });

  it("caps the account's sum: 30 numbers at 10/s never send more than 10 in any second", async () => {
    const a = await account(30, 10);
    for (const from of a.numbers) await send(a.accountId, from, ["14155550123", "12125551234"], `from ${from}`, false);
    await run(8);
    expect(sent).toHaveLength(60);
    for (let start = NY_10AM; start < NY_10AM + 6000; start += 50) {
      expect(sent.filter((s) => s.at >= start && s.at < start + 1000).length).toBeLessThanOrEqual(10);
    }
  });

  it("sends ad hoc before bulk, and bulk at most at half the account limit", async () => {
    const a = await account(20, 10);
    const bulkIds: string[] = [];
    for (const from of a.numbers)
      bulkIds.push(...(await send(a.accountId, from, ["14155550123", "12125551234"], "bulk", true)));
    // From the number provisioned last: the account's first slot goes to it all the same, before any bulk part.
    const adhocFrom = a.numbers.at(-1)!;
    const adhoc = await send(a.accountId, adhocFrom, ["13125550111"], "ad hoc", false);
    await run(10);
    // The ad hoc message leaves at the first instant, and before every bulk message of its number (the order of
    // parts that leave at the same instant from different numbers is the carrier's).
    const adhocSent = sent.find((s) => s.part.messageId === adhoc[0])!;
    expect(adhocSent.at).toBe(NY_10AM);
    const ownBulk = sent.filter((s) => bulkIds.includes(s.part.messageId) && s.part.from === adhocFrom);
    expect(ownBulk.length).toBeGreaterThan(0);
    for (const b of ownBulk) expect(b.at).toBeGreaterThan(adhocSent.at);
    const bulkSent = sent.filter((s) => bulkIds.includes(s.part.messageId));
    for (let start = NY_10AM; start < NY_10AM + 7000; start += 50) {
      expect(bulkSent.filter((s) => s.at >= start && s.at < start + 1000).length).toBeLessThanOrEqual(5);
    }
  });

  it("holds bulk outside the destination's daytime window, and sends it when the window opens", async () => {
    const a = await account(1, 10);
    // 10:00 in New York is 07:00 in Los Angeles: bulk to a California number waits an hour, to New York it goes.
    const [toLa] = await send(a.accountId, a.numbers[0]!, ["14155550123"], "bulk to LA", true);
    const [toNy] = await send(a.accountId, a.numbers[0]!, ["12125551234"], "bulk to NY", true);
    await run(3);
    expect(sent.map((s) => s.part.messageId)).toEqual([toNy]);
    now = NY_10AM + 3600_000; // 08:00 in Los Angeles
    await run(2);
    expect(sent.map((s) => s.part.messageId)).toEqual([toNy, toLa]);
  });
});

/**
 * A worker whose carrier keeps one message's first part waiting (until `open`) before it asks to leave, as a full
 * SMPP window does; `refused` lists the parts the worker would not let leave.
 */
function gatedWorker(gatedMessageId: string) {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const refused: string[] = [];
  const simulator = createSimulatorCarrier({ receiptDelayMs: 3_600_000 });
  const carrier: Carrier = {
    ...simulator,
    name: simulator.name,
    submit: async (part, departure) => {
      if (part.messageId === gatedMessageId) await gate;
      return simulator.submit(part, {
        leave: () => {
          try {
            return departure?.leave();
          } catch (error) {
            refused.push(part.messageId);
            throw error;
          }
        },
        left: () => {
          sent.push({ part, at: now });
          departure?.left();
        },
      });
    },
  };
  const gated = new DeliveryWorker({
    carrier,
    clock: () => now,
    pollMs: 0,
    leaseMs: 30_000,
    workerId: `gated-${Math.random()}`,
  });
  return { worker: gated, open, refused };
}

const reservations = (messageId: string) => db().sdr.count({ where: { messageId, status: "sending" } });

describe("the delivery worker's fence (injected clock, real database)", () => {
  it("sends nothing it reserved before its lease lapsed, even once it holds the number again", async () => {
    const a = await account(1);
    const from = a.numbers[0]!;
    const [first, second] = await send(a.accountId, from, ["14155550123", "12125551234"], "fenced", false);
    const { worker: fenced, open, refused } = gatedWorker(first!);
    const firstTick = fenced.tick();
    await expect.poll(() => reservations(first!)).toBe(1);

    // Its lease lapses while the part waits; another worker takes the number, sends that part and gives the
    // number back with the second message still queued.
    now += 31_000;
    await db().message.update({ where: { id: first }, data: { status: "sent", partsSubmitted: 1 } });
    await db().phoneNumber.update({
      where: { number: from },
      data: { leaseOwner: null, leaseUntil: null, nextSendAt: new Date(now - 500) },
    });
    // The waiting worker claims the number again, with a fresh lease, before its carrier asks to let the part go.
    now += 1_000;
    const secondTick = fenced.tick();
    await expect
      .poll(async () => (await db().phoneNumber.findUnique({ where: { number: from } }))?.leaseUntil?.getTime())
      .toBe(now + 30_000);
    open();
    await Promise.all([firstTick, secondTick]);
    expect(refused).toEqual([first]);
    expect(sent.map((s) => s.part.messageId)).toEqual([]);

    // What it reserves under the new lease goes.
    now += 1_000;
    await fenced.tick();
    await fenced.stop();
    expect(sent.map((s) => s.part.messageId)).toEqual([second]);
    expect((await db().message.findUnique({ where: { id: first } }))?.status).toBe("sent");
  });

  it("a part held back because its lease ran short keeps its number's slot: a slow number tries again at once", async () => {
    const a = await account(1);
    const from = a.numbers[0]!;
    // One message every 100 s: a part may leave only while the lease (30 s) covers most of that.
    await db().phoneNumber.update({ where: { number: from }, data: { ratePerSecond: 0.01 } });
    const [only] = await send(a.accountId, from, ["14155550123"], "slow", false);
    const { worker: slow, open, refused } = gatedWorker(only!);
    const firstTick = slow.tick();
    await expect.poll(() => reservations(only!)).toBe(1);
    // The carrier lets it go 3 s later: the lease has 27 s left, too little for a part of a number this slow.
    now += 3_000;
    open();
    await firstTick;
    expect(refused).toEqual([only]);
    expect(sent).toEqual([]);

    // The next round renews the lease and sends it, not 100 s later.
    now += 50;
    await slow.tick();
    await slow.stop();
    expect(sent.map((s) => [s.part.messageId, s.at - NY_10AM])).toEqual([[only, 3_050]]);
  });
});
