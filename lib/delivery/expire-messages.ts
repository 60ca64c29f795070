import { db } from "../db/client";
import { sdr } from "./sdr-writer";
import { settleMessage } from "./record-receipt";
import { enqueueDeliveryStatusEvents } from "../webhooks/enqueue-events";
import { announceChanges } from "../realtime/announce-changes";

/** Parts still waiting for a receipt past their message's validity become `expired` (the decision: 48 h default). */
export async function expireOverdueParts(now: number): Promise<number> {
  const overdue = await db().messagePart.findMany({
    where: { status: "wait_dlr", message: { expiresAt: { lt: new Date(now) } } },
    select: {
      id: true,
      segmentNumber: true,
      message: { select: { id: true, accountId: true, referenceId: true, numSegments: true, partsSubmitted: true } },
    },
    take: 500,
  });
  let expired = 0;
  for (const part of overdue) {
    await db().$transaction(async (tx) => {
      const claimed = await tx.messagePart.updateMany({
        where: { id: part.id, status: "wait_dlr" },
        data: { status: "expired", receiptAt: new Date(now) },
      });
      if (claimed.count === 0) return;
      expired += 1;
      const { message } = part;
      await tx.sdr.create({
        data: sdr(message.id, message.accountId, "expired", now, {
          segmentNumber: part.segmentNumber,
          statusDetails: "no delivery receipt within the validity period",
          referenceId: message.referenceId,
        }),
      });
      await enqueueDeliveryStatusEvents(tx, [
        {
          messageId: message.id,
          segmentNumber: part.segmentNumber,
          status: "expired",
          statusDetails: "no delivery receipt within the validity period",
          createdAt: new Date(now),
        },
      ]);
      await settleMessage(tx, message.id, message.numSegments, message.partsSubmitted);
    });
  }
  // The live view: its `expired` records, once committed.
  if (expired > 0) announceChanges();
  return overdue.length;
}
