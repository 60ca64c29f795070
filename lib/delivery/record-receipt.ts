import { db } from "../db/client";
import type { DeliveryReceipt, ReceiptStatus } from "../carriers/carrier";
import { sdr } from "./sdr-writer";
import { finalStatus } from "./final-status";

/**
 * A carrier's receipt for one part: the outcome and `dlr_received` records for that segment, and the message's
 * status once every part has its answer. A receipt seen before (carriers repeat them) changes nothing.
 */
export async function recordReceipt(receipt: DeliveryReceipt): Promise<"recorded" | "duplicate" | "unknown"> {
  return db().$transaction(async (tx) => {
    const part = await tx.messagePart.findUnique({
      where: { carrierMessageId: receipt.carrierMessageId },
      select: {
        id: true,
        status: true,
        segmentNumber: true,
        message: { select: { id: true, accountId: true, referenceId: true, numSegments: true, partsSubmitted: true } },
      },
    });
    if (!part) return "unknown";
    if (part.status !== "wait_dlr") return "duplicate";
    const at = receipt.receivedAt.getTime();
    const claimed = await tx.messagePart.updateMany({
      where: { id: part.id, status: "wait_dlr" },
      data: { status: receipt.status, receiptAt: receipt.receivedAt },
    });
    if (claimed.count === 0) return "duplicate";
    const { message } = part;
    const details = `${receipt.statusMsg}`.trim();
    await tx.sdr.createMany({
      data: [
        sdr(message.id, message.accountId, receipt.status, at, {
          segmentNumber: part.segmentNumber,
          statusDetails: details,
          referenceId: message.referenceId,
        }),
        sdr(message.id, message.accountId, "dlr_received", at, {
          segmentNumber: part.segmentNumber,
          statusDetails: `err:${receipt.carrierCode}`,
          referenceId: message.referenceId,
        }),
      ],
    });
    await settleMessage(tx, message.id, message.numSegments, message.partsSubmitted);
    return "recorded";
  });
}

type Tx = Parameters<Parameters<ReturnType<typeof db>["$transaction"]>[0]>[0];

/** Sets the listing status from the parts once all of them are out and answered. */
export async function settleMessage(
  tx: Tx,
  messageId: string,
  numSegments: number,
  partsSubmitted: number,
): Promise<void> {
  if (partsSubmitted < numSegments) return;
  const parts = await tx.messagePart.findMany({ where: { messageId }, select: { status: true } });
  if (parts.length < numSegments || parts.some((p) => p.status === "wait_dlr")) return;
  await tx.message.update({
    where: { id: messageId },
    data: { status: finalStatus(parts.map((p) => p.status as ReceiptStatus)) },
  });
}
