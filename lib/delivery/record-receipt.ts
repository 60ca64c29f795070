import { db } from "../db/client";
import type { DeliveryReceipt, ReceiptStatus } from "../carriers/carrier";
import { insertSdrs, type SdrRow } from "../db/insert-rows";
import { sdr } from "./sdr-writer";
import { finalStatus } from "./final-status";

type Tx = Parameters<Parameters<ReturnType<typeof db>["$transaction"]>[0]>[0];

export interface ReceiptOutcome {
  recorded: number;
  duplicates: number;
  /** Receipts whose part is not (yet) known: a receipt may overtake the commit of its own submit. */
  unknown: DeliveryReceipt[];
}

/**
 * Carriers' receipts, many at a time: each part's outcome and `dlr_received` records, and a message's status once
 * every part has its answer. A receipt seen before (carriers repeat them) changes nothing. The transaction starts
 * with its writes (the claims), so that on SQLite it waits for the write lock instead of failing when another
 * process wrote between a read and a write.
 */
export async function recordReceipts(receipts: DeliveryReceipt[]): Promise<ReceiptOutcome> {
  if (receipts.length === 0) return { recorded: 0, duplicates: 0, unknown: [] };
  // Parts claimed by this batch are the ones whose receiptAt is this batch's own instant afterwards.
  const stamp = new Date();
  const byStatus = new Map<ReceiptStatus, string[]>();
  for (const r of receipts) byStatus.set(r.status, [...(byStatus.get(r.status) ?? []), r.carrierMessageId]);
  return db().$transaction(async (tx) => {
    for (const [status, ids] of byStatus) {
      await tx.messagePart.updateMany({
        where: { carrierMessageId: { in: ids }, status: "wait_dlr" },
        data: { status, receiptAt: stamp },
      });
    }
    const parts = await tx.messagePart.findMany({
      where: { carrierMessageId: { in: receipts.map((r) => r.carrierMessageId) } },
      select: {
        carrierMessageId: true,
        status: true,
        receiptAt: true,
        segmentNumber: true,
        message: { select: { id: true, accountId: true, referenceId: true, numSegments: true, partsSubmitted: true } },
      },
    });
    const byId = new Map(parts.map((p) => [p.carrierMessageId, p]));
    const outcome: ReceiptOutcome = { recorded: 0, duplicates: 0, unknown: [] };
    const sdrs: SdrRow[] = [];
    const touched = new Map<string, { numSegments: number; partsSubmitted: number }>();
    for (const receipt of receipts) {
      const part = byId.get(receipt.carrierMessageId);
      if (!part || part.status === "wait_dlr") {
        // Still waiting: on PostgreSQL each statement reads what is committed when it starts, so a part committed
        // after the claims ran and before this read was not claimed; it is tried again like an unknown one.
        outcome.unknown.push(receipt);
        continue;
      }
      if (part.receiptAt?.getTime() !== stamp.getTime() || part.status !== receipt.status) {
        outcome.duplicates += 1;
        continue;
      }
      byId.delete(receipt.carrierMessageId); // a second copy of the same receipt in this batch is a duplicate
      const { message } = part;
      const at = receipt.receivedAt.getTime();
      sdrs.push(
        sdr(message.id, message.accountId, receipt.status, at, {
          segmentNumber: part.segmentNumber,
          statusDetails: receipt.statusMsg.trim(),
          referenceId: message.referenceId,
        }) as SdrRow,
        sdr(message.id, message.accountId, "dlr_received", at, {
          segmentNumber: part.segmentNumber,
          statusDetails: `err:${receipt.carrierCode}`,
          referenceId: message.referenceId,
        }) as SdrRow,
      );
      touched.set(message.id, { numSegments: message.numSegments, partsSubmitted: message.partsSubmitted });
      outcome.recorded += 1;
    }
    await insertSdrs(tx, sdrs);
    await settleMessages(tx, touched);
    return outcome;
  });
}

/** Sets the listing status of messages whose parts are all out and answered. */
export async function settleMessages(
  tx: Tx,
  messages: Map<string, { numSegments: number; partsSubmitted: number }>,
): Promise<void> {
  const complete = [...messages].filter(([, m]) => m.partsSubmitted >= m.numSegments).map(([id]) => id);
  if (complete.length === 0) return;
  const parts = await tx.messagePart.findMany({
    where: { messageId: { in: complete } },
    select: { messageId: true, status: true },
  });
  const statuses = new Map<string, ReceiptStatus[]>();
  const waiting = new Set<string>();
  for (const p of parts) {
    if (p.status === "wait_dlr") waiting.add(p.messageId);
    else statuses.set(p.messageId, [...(statuses.get(p.messageId) ?? []), p.status as ReceiptStatus]);
  }
  const byFinal = new Map<ReceiptStatus, string[]>();
  for (const id of complete) {
    const answered = statuses.get(id) ?? [];
    if (waiting.has(id) || answered.length < messages.get(id)!.numSegments) continue;
    const status = finalStatus(answered);
    byFinal.set(status, [...(byFinal.get(status) ?? []), id]);
  }
  for (const [status, ids] of byFinal) await tx.message.updateMany({ where: { id: { in: ids } }, data: { status } });
}

/** The one-message form, for callers settling a single message. */
export function settleMessage(tx: Tx, messageId: string, numSegments: number, partsSubmitted: number): Promise<void> {
  return settleMessages(tx, new Map([[messageId, { numSegments, partsSubmitted }]]));
}
