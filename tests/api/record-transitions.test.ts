import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { reloadEnv } from "../../lib/env";
import { prepareDatabase } from "../../lib/boot/prepare-database";
import { db, disconnectDb } from "../../lib/db/client";
import { uuidv7 } from "../../lib/db/ids";
import { writeTransaction } from "../../lib/db/steps";
import { createAccount } from "../../lib/accounts/manage-accounts";
import { provisionNumber } from "../../lib/numbers/manage-numbers";
import { installAnnouncer } from "../../lib/realtime/announce-changes";
import { recordTransitions, recordTransitionsInTx, sdrRow } from "../../lib/messaging/record-transitions";
import { createTestDatabase, type TestDatabase } from "../helpers/test-database";
import { randomNumber } from "../helpers/factories";

// recordTransitions on a real database: a message's status, its SDRs and the webhook event the change implies are
// written in the caller's one transaction, and the live view is woken only once it has committed; a transaction
// rolled back leaves none of them and wakes nothing.
let database: TestDatabase;
let accountId: string;
let from: string;
let announced = 0;

beforeAll(async () => {
  database = await createTestDatabase();
  process.env.DATABASE_URL = database.url;
  reloadEnv();
  await prepareDatabase();
  accountId = (await createAccount({ name: "transitions" })).id;
  from = (await provisionNumber({ accountId, number: `+${randomNumber()}`, actor: "cli" })).number;
  await db().webhookEndpoint.create({ data: { accountId, url: "https://example.com/hook" } });
  installAnnouncer({ announce: () => void (announced += 1), close: async () => {} });
});

afterAll(async () => {
  await disconnectDb();
  await database?.drop();
});

beforeEach(() => {
  announced = 0;
});

async function sentMessage(status = "sent"): Promise<string> {
  const id = uuidv7();
  const now = new Date();
  await db().message.create({
    data: {
      id,
      accountId,
      direction: "outbound",
      messageType: "sms",
      fromNumber: from,
      toNumber: "14155550123",
      body: "hello",
      numSegments: 1,
      encoding: "GSM7",
      status,
      partsSubmitted: 1,
      createdAt: now,
      updatedAt: now,
    },
  });
  return id;
}

async function stateOf(id: string) {
  const message = await db().message.findUniqueOrThrow({ where: { id }, select: { status: true } });
  const sdrs = await db().sdr.findMany({ where: { messageId: id }, select: { status: true }, orderBy: { id: "asc" } });
  const events = await db().webhookEvent.findMany({ where: { messageId: id }, select: { kind: true, payload: true } });
  return { status: message.status, sdrs: sdrs.map((s) => s.status), events };
}

const delivered = (id: string, at: number) => ({
  changes: [{ ids: [id], set: { status: "delivered" } }],
  sdrs: [
    sdrRow(id, accountId, "delivered", at, { segmentNumber: 1, statusDetails: "stat:DELIVRD" }),
    sdrRow(id, accountId, "dlr_received", at, { segmentNumber: 1, statusDetails: "err:000" }),
  ],
  at: new Date(at),
});

describe("recordTransitions", () => {
  it("writes the status, the SDRs and the webhook event in one transaction, then wakes the live view", async () => {
    const id = await sentMessage();
    await writeTransaction(() => recordTransitions(delivered(id, Date.now())));
    const state = await stateOf(id);
    expect(state.status).toBe("delivered");
    expect(state.sdrs).toEqual(["delivered", "dlr_received"]);
    expect(state.events).toHaveLength(1);
    expect(state.events[0]!.kind).toBe("message-status");
    expect(JSON.parse(state.events[0]!.payload)).toMatchObject({ messageId: id, status: "delivered" });
    expect(announced).toBe(1);
  });

  it("leaves nothing and wakes nothing when the transaction rolls back", async () => {
    const id = await sentMessage();
    await expect(
      writeTransaction(function* () {
        yield* recordTransitions(delivered(id, Date.now()));
        throw new Error("the caller's next write failed");
      }),
    ).rejects.toThrow("the caller's next write failed");
    expect(await stateOf(id)).toEqual({ status: "sent", sdrs: [], events: [] });
    expect(announced).toBe(0);
  });

  it("in a caller's Prisma transaction: the wake-up waits for the commit, and a rollback leaves nothing", async () => {
    const id = await sentMessage();
    const later = new Set<() => void>();
    await expect(
      db().$transaction(async (tx) => {
        await recordTransitionsInTx(tx, delivered(id, Date.now()), later);
        expect(announced).toBe(0);
        throw new Error("rolled back");
      }),
    ).rejects.toThrow("rolled back");
    expect(await stateOf(id)).toEqual({ status: "sent", sdrs: [], events: [] });

    const committed = new Set<() => void>();
    await db().$transaction((tx) => recordTransitionsInTx(tx, delivered(id, Date.now()), committed));
    expect(announced).toBe(0);
    for (const run of committed) run();
    expect(announced).toBe(1);
    expect(await stateOf(id)).toMatchObject({ status: "delivered", sdrs: ["delivered", "dlr_received"] });
  });

  it("a guarded change moves only the messages still matching it, and writes only their SDRs", async () => {
    const waiting = await sentMessage("queued");
    const gone = await sentMessage("sending");
    const at = Date.now();
    const unmoved = await writeTransaction(() =>
      recordTransitions({
        changes: [
          {
            ids: [waiting, gone],
            set: { status: "rejected", rejectReason: "OptedOut" },
            onlyFrom: { status: ["queued"] },
          },
        ],
        sdrs: [waiting, gone].map((id) => sdrRow(id, accountId, "rejected", at, { statusDetails: "OptedOut" })),
        at: new Date(at),
      }),
    );
    expect([...unmoved]).toEqual([gone]);
    expect(await stateOf(waiting)).toMatchObject({ status: "rejected", sdrs: ["rejected"] });
    expect(await stateOf(gone)).toEqual({ status: "sending", sdrs: [], events: [] });
  });
});
