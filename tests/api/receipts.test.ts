import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reloadEnv } from "../../lib/env";
import { prepareDatabase } from "../../lib/boot/prepare-database";
import { db, disconnectDb } from "../../lib/db/client";
import { uuidv4, uuidv7 } from "../../lib/db/ids";
import { createAccount } from "../../lib/accounts/manage-accounts";
import { provisionNumber } from "../../lib/numbers/manage-numbers";
import { recordReceipts } from "../../lib/delivery/record-receipt";
import type { DeliveryReceipt } from "../../lib/carriers/carrier";
import { createTestDatabase, type TestDatabase } from "../helpers/test-database";
import { randomNumber } from "../helpers/factories";

// Receipts recorded on a real database: the answers to the parts of one message may come in separate batches at
// the same moment (several workers, or a carrier that hands receipts to any of its sessions).
let database: TestDatabase;
let accountId: string;
let from: string;

beforeAll(async () => {
  database = await createTestDatabase();
  process.env.DATABASE_URL = database.url;
  reloadEnv();
  await prepareDatabase();
  accountId = (await createAccount({ name: "receipts" })).id;
  from = (await provisionNumber({ accountId, number: `+${randomNumber()}`, actor: "cli" })).number;
});

afterAll(async () => {
  await disconnectDb();
  await database?.drop();
});

/** A two-part message whose parts are both out and waiting for their receipts. */
async function twoPartMessage(): Promise<{ id: string; carrierIds: [string, string] }> {
  const id = uuidv7();
  const now = new Date();
  const carrierIds: [string, string] = [uuidv4(), uuidv4()];
  await db().message.create({
    data: {
      id,
      accountId,
      direction: "outbound",
      messageType: "sms",
      fromNumber: from,
      toNumber: "14155550123",
      body: "x".repeat(200),
      numSegments: 2,
      encoding: "GSM7",
      status: "sent",
      partsSubmitted: 2,
      createdAt: now,
      parts: {
        create: carrierIds.map((carrierMessageId, i) => ({
          id: uuidv4(),
          segmentNumber: i + 1,
          carrierMessageId,
          status: "wait_dlr",
          submittedAt: now,
        })),
      },
    },
  });
  return { id, carrierIds };
}

const receipt = (carrierMessageId: string, status: DeliveryReceipt["status"]): DeliveryReceipt => ({
  carrierMessageId,
  status,
  carrierCode: status === "delivered" ? "000" : "001",
  statusMsg: `id:${carrierMessageId} stat:${status === "delivered" ? "DELIVRD" : "UNDELIV"} err:000`,
  receivedAt: new Date(),
});

describe("receipts for the parts of one message in concurrent batches", () => {
  it("settle every message, whichever batch commits first", async () => {
    const messages = await Promise.all(Array.from({ length: 12 }, twoPartMessage));
    // Each part's receipt in a batch of its own, all at once.
    await Promise.all(
      messages.flatMap(({ carrierIds }, i) =>
        carrierIds.map((c, part) =>
          recordReceipts([receipt(c, i % 3 === 0 && part === 1 ? "undelivered" : "delivered")]),
        ),
      ),
    );
    const rows = await db().message.findMany({
      where: { id: { in: messages.map((m) => m.id) } },
      select: { id: true, status: true },
    });
    const status = new Map(rows.map((r) => [r.id, r.status]));
    messages.forEach(({ id }, i) =>
      expect(status.get(id), `message ${i}`).toBe(i % 3 === 0 ? "undelivered" : "delivered"),
    );
    const dlrs = await db().sdr.count({
      where: { messageId: { in: messages.map((m) => m.id) }, status: "dlr_received" },
    });
    expect(dlrs).toBe(24);
  });

  it("records a repeated receipt once", async () => {
    const { id, carrierIds } = await twoPartMessage();
    await Promise.all([
      recordReceipts([receipt(carrierIds[0], "delivered")]),
      recordReceipts([receipt(carrierIds[0], "delivered")]),
      recordReceipts([receipt(carrierIds[1], "delivered")]),
    ]);
    const sdrs = await db().sdr.findMany({ where: { messageId: id }, select: { status: true, segmentNumber: true } });
    expect(
      sdrs
        .filter((s) => s.status === "dlr_received")
        .map((s) => s.segmentNumber)
        .sort(),
    ).toEqual([1, 2]);
    expect((await db().message.findUnique({ where: { id } }))?.status).toBe("delivered");
  });
});
