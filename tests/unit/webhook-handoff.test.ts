import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { db, disconnectDb } from "../../lib/db/client";
import { uuidv7 } from "../../lib/db/ids";
import { insertRows } from "../../lib/db/insert-rows";
import { migrate } from "../../lib/db/migrate";
import { MESSAGE_COLUMNS, messageValues } from "../../lib/db/send-rows";
import { runSteps, writeTransaction, type RawClient } from "../../lib/db/steps";
import { recordTransitions } from "../../lib/messaging/record-transitions";
import { WebhookDispatcher } from "../../lib/webhooks/webhook-dispatcher";
import { onEventsWritten, type EventTaker } from "../../lib/webhooks/enqueue-events";
import { releaseEventLeasesSteps, type ClaimedEvent } from "../../lib/webhooks/webhook-queries";
import { startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver";
import { waitUntil } from "../helpers/wait-for";

// A delivery outcome's webhook event, written by the worker, is handed to the dispatcher of the same process leased
// already, once its transaction has committed: posted without a claim. Events of one message still go in order, a
// rolled-back write hands nothing over, and a dispatcher that stops gives back the leases of those it had not posted.
describe("webhook events handed to this process's dispatcher as they are written", () => {
  const dir = mkdtempSync(join(tmpdir(), "parley-handoff-"));
  const account = "acct-handoff";
  let receiver: WebhookReceiver;

  /** A dispatcher stand-in that takes what it is given and keeps it. */
  class Keeper implements EventTaker {
    readonly owner = `keeper-${randomBytes(3).toString("hex")}`;
    readonly taken: ClaimedEvent[] = [];
    constructor(private space: number) {}
    room(): number {
      return Math.max(0, this.space - this.taken.length);
    }
    leaseUntil(now: number): number {
      return now + 60_000;
    }
    take(events: ClaimedEvent[]): void {
      this.taken.push(...events);
    }
  }

  async function message(segments = 1): Promise<string> {
    const id = uuidv7();
    const now = new Date();
    await insertRows(db(), "Message", MESSAGE_COLUMNS, [
      messageValues({
        id,
        accountId: account,
        direction: "outbound",
        messageType: "sms",
        fromNumber: "14155550100",
        toNumber: "14155550199",
        body: "Your order has shipped",
        numSegments: segments,
        encoding: "GSM-7",
        status: "sent",
        createdAt: now,
      }),
    ]);
    return id;
  }

  /** The outcome rows of the segments, as a receipt writes them: each a delivery-status event. */
  function outcomes(messageId: string, segments: number[], at = Date.now()) {
    return segments.map((segmentNumber) => ({
      messageId,
      accountId: account,
      status: "delivered",
      statusDetails: "stat:DELIVRD err:000",
      segmentNumber,
      referenceId: null,
      createdAt: new Date(at + segmentNumber),
    }));
  }

  async function events(messageId: string) {
    const rows = await db().$queryRawUnsafe<
      { segmentNumber: bigint | number; status: string; leaseOwner: string | null; nextAttemptAt: string }[]
    >(
      `SELECT "segmentNumber", "status", "leaseOwner", "nextAttemptAt" FROM "WebhookEvent" WHERE "messageId" = ?
       ORDER BY "segmentNumber"`,
      messageId,
    );
    return rows.map((r) => ({ ...r, segmentNumber: Number(r.segmentNumber) }));
  }

  beforeAll(async () => {
    process.env.DATABASE_URL = `file:${join(dir, "parley.db")}`;
    process.env.PARLEY_DATA_DIR = dir;
    await migrate(process.env.DATABASE_URL);
    receiver = await startWebhookReceiver();
    await db().account.create({ data: { id: account, name: "Handoff" } });
    await db().webhookEndpoint.create({ data: { accountId: account, url: receiver.url } });
    await db().webhookSecret.create({
      data: {
        id: uuidv7(),
        accountId: account,
        secret: `whsec_${randomBytes(24).toString("base64")}`,
        createdAt: new Date(),
      },
    });
  });

  afterAll(async () => {
    await receiver?.close();
    await disconnectDb();
    rmSync(dir, { recursive: true, force: true });
  });

  let keeper: Keeper;
  let unsubscribe: () => void = () => {};
  /** The stand-in takes what is written from now on, with room for `space` events. */
  function useKeeper(space: number): void {
    unsubscribe();
    keeper = new Keeper(space);
    unsubscribe = onEventsWritten(() => {}, keeper);
  }
  beforeEach(() => useKeeper(10));

  /**
   * A real dispatcher in place of the stand-in, with nothing due in the outbox and no poll during the test (it posts
   * what is handed over, and claims only when woken), and a receiver that answers after `delayMs`.
   */
  async function quietDispatcher(concurrency: number, delayMs: number) {
    unsubscribe();
    unsubscribe = () => {};
    await db().webhookEvent.deleteMany({});
    receiver.respond = () => ({ status: 200, delayMs });
    return {
      dispatcher: new WebhookDispatcher({ pollMs: 3_600_000, concurrency, allowPrivate: true }),
      before: receiver.requests.length,
    };
  }

  it("hands over the first event of each message, leased, and leaves the next of the same message to a claim", async () => {
    const a = await message(2);
    const b = await message();
    await writeTransaction(() =>
      recordTransitions({ sdrs: [...outcomes(a, [1, 2]), ...outcomes(b, [1])], at: new Date() }),
    );

    expect(keeper.taken.map((e) => [e.messageId, e.segmentNumber])).toEqual([
      [a, 1],
      [b, 1],
    ]);
    const [a1, a2] = await events(a);
    expect(a1).toMatchObject({ status: "pending", leaseOwner: keeper.owner });
    // Not due while leased: its next attempt is the lease's end, a minute from now.
    expect(new Date(a1!.nextAttemptAt).getTime()).toBeGreaterThan(Date.now() + 50_000);
    expect(a2).toMatchObject({ status: "pending", leaseOwner: null });
    expect((await events(b))[0]).toMatchObject({ leaseOwner: keeper.owner });

    // A later event of a message whose earlier one is still pending waits for it: not handed over.
    const taken = keeper.taken.length;
    await writeTransaction(() => recordTransitions({ sdrs: outcomes(b, [2]), at: new Date() }));
    expect(keeper.taken).toHaveLength(taken);
    expect((await events(b))[1]).toMatchObject({ status: "pending", leaseOwner: null });
  });

  it("hands over no more than the dispatcher has room for", async () => {
    useKeeper(1);
    const ids = [await message(), await message(), await message()];
    await writeTransaction(() => recordTransitions({ sdrs: ids.flatMap((id) => outcomes(id, [1])), at: new Date() }));
    expect(keeper.taken).toHaveLength(1);
    const leased = (await Promise.all(ids.map(events))).flat().filter((e) => e.leaseOwner !== null);
    expect(leased).toHaveLength(1);
  });

  it("hands over nothing from a write that rolled back, nor from a caller's own transaction", async () => {
    const kept = await message();
    const failed = await message();
    const refused = writeTransaction(function* () {
      yield* recordTransitions({ sdrs: outcomes(failed, [1]), at: new Date() });
      throw new Error("the body fails after writing");
    });
    // In the same group as another body that commits.
    const committed = writeTransaction(() => recordTransitions({ sdrs: outcomes(kept, [1]), at: new Date() }));
    await expect(refused).rejects.toThrow("the body fails after writing");
    await committed;
    expect(keeper.taken.map((e) => e.messageId)).toEqual([kept]);
    expect(await events(failed)).toEqual([]);

    // Inside a caller's Prisma transaction the commit is the caller's: the event waits for a claim.
    const own = await message();
    await db().$transaction((tx) =>
      runSteps(tx as unknown as RawClient, recordTransitions({ sdrs: outcomes(own, [1]), at: new Date() })),
    );
    expect(keeper.taken.map((e) => e.messageId)).toEqual([kept]);
    expect((await events(own))[0]).toMatchObject({ status: "pending", leaseOwner: null });
  });

  it("posts what it is handed without a claim, in order per message; stopping gives back the leases not yet posted", async () => {
    // One slot, and a slow receiver.
    const { dispatcher, before } = await quietDispatcher(1, 300);
    const ids = [await message(), await message(), await message()];
    dispatcher.start();
    try {
      await writeTransaction(() => recordTransitions({ sdrs: ids.flatMap((id) => outcomes(id, [1])), at: new Date() }));
      await receiver.waitFor((r) => r.json.messageId === ids[0]);
    } finally {
      await dispatcher.stop();
    }
    // The first was posted and recorded delivered; the two waiting for the slot are due again, for any dispatcher.
    expect(receiver.requests.slice(before).map((r) => r.json.messageId)).toEqual([ids[0]]);
    expect((await events(ids[0]!))[0]).toMatchObject({ status: "delivered" });
    for (const id of ids.slice(1)) {
      const [event] = await events(id);
      expect(event).toMatchObject({ status: "pending", leaseOwner: null });
      expect(new Date(event!.nextAttemptAt).getTime()).toBeLessThanOrEqual(Date.now());
    }

    // Another dispatcher claims them from the outbox.
    receiver.respond = () => ({ status: 200 });
    const next = new WebhookDispatcher({ pollMs: 50, concurrency: 4, allowPrivate: true });
    next.start();
    try {
      await waitUntil(
        "the events given back delivered by another dispatcher",
        async () => (await Promise.all(ids.map(events))).flat().every((e) => e.status === "delivered"),
        10_000,
      );
    } finally {
      await next.stop();
    }
    expect(
      receiver.requests
        .slice(before)
        .map((r) => r.json.messageId)
        .sort(),
    ).toEqual([...ids].sort());
  });

  it("gives an event waiting in the outbox a slot while events handed over fill them", async () => {
    // Four slots and a receiver that takes 100 ms: thirty events handed over at once queue for them.
    const { dispatcher, before } = await quietDispatcher(4, 100);
    const handed: string[] = [];
    for (let i = 0; i < 30; i++) handed.push(await message());
    const waiting = await message();
    dispatcher.start();
    try {
      await writeTransaction(() =>
        recordTransitions({ sdrs: handed.flatMap((id) => outcomes(id, [1])), at: new Date() }),
      );
      // Written inside a caller's own transaction: it waits in the outbox for a claim.
      await db().$transaction((tx) =>
        runSteps(tx as unknown as RawClient, recordTransitions({ sdrs: outcomes(waiting, [1]), at: new Date() })),
      );
      await waitUntil("every event posted", () => receiver.requests.length - before >= 31, 20_000, 20);
    } finally {
      await dispatcher.stop();
    }
    const posted = receiver.requests.slice(before).map((r) => r.json.messageId);
    // It did not wait for all thirty to be posted first: a slot was kept for the outbox's claim.
    expect(posted.indexOf(waiting)).toBeGreaterThan(-1);
    expect(posted.indexOf(waiting)).toBeLessThan(20);
  });

  it("gives back a lease only as it was taken: one that ran out and was taken again is left alone", async () => {
    const id = await message();
    await writeTransaction(() => recordTransitions({ sdrs: outcomes(id, [1]), at: new Date() }));
    const [event] = keeper.taken.filter((e) => e.messageId === id);
    const [row] = await db().$queryRawUnsafe<{ leaseUntil: string }[]>(
      `SELECT "leaseUntil" FROM "WebhookEvent" WHERE "id" = ?`,
      event!.id,
    );
    const first = new Date(row!.leaseUntil).getTime();
    // The lease ran out and the same owner took the event again, until later.
    const again = first + 90_000;
    await db().webhookEvent.update({ where: { id: event!.id }, data: { leaseUntil: new Date(again) } });
    const released = (leaseUntil: number) =>
      writeTransaction(() => releaseEventLeasesSteps([{ id: event!.id, leaseUntil }], keeper.owner, new Date()));
    expect(await released(first)).toBe(0);
    expect((await events(id))[0]).toMatchObject({ leaseOwner: keeper.owner });
    expect(await released(again)).toBe(1);
    expect((await events(id))[0]).toMatchObject({ status: "pending", leaseOwner: null });
  });
});
