import { db, dbProvider } from "../db/client";
import { Prisma } from "../db/generated/sqlite/client";
import type { DeliveryReceipt, ReceiptStatus } from "../carriers/carrier";
import { boundValue, insertSdrs, placeholder, type SdrRow } from "../db/insert-rows";
import { sdr } from "./sdr-writer";
import { finalStatus } from "./final-status";
import { enqueueDeliveryStatusEvents } from "../webhooks/enqueue-events";
import { metrics } from "../metrics/define-metrics";

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
  const stamp = new Date();
  const byStatus = new Map<ReceiptStatus, string[]>();
  for (const r of receipts) byStatus.set(r.status, [...(byStatus.get(r.status) ?? []), r.carrierMessageId]);
  // The outcomes this batch recorded, counted once it is committed.
  let recorded: ReceiptStatus[] = [];
  const result = await db().$transaction(async (tx) => {
    recorded = [];
    // The parts this batch answers are the ones its own UPDATE changed: a receipt recorded by another batch at the
    // same moment (a carrier repeating itself to two sessions) is a duplicate here, whatever the clocks say.
    const claimed = new Set<string>();
    for (const [status, ids] of byStatus) for (const id of await claimParts(tx, ids, status, stamp)) claimed.add(id);
    const parts =
      claimed.size === 0
        ? []
        : await tx.messagePart.findMany({
            where: { carrierMessageId: { in: [...claimed] } },
            select: {
              carrierMessageId: true,
              segmentNumber: true,
              message: {
                select: { id: true, accountId: true, referenceId: true, numSegments: true, partsSubmitted: true },
              },
            },
          });
    const byId = new Map(parts.map((p) => [p.carrierMessageId, p]));
    const outcome: ReceiptOutcome = { recorded: 0, duplicates: 0, unknown: [] };
    const unclaimed = receipts.filter((r) => !claimed.has(r.carrierMessageId)).map((r) => r.carrierMessageId);
    // Of the others, those whose part exists and has its answer are repeats; the rest are not (yet) known.
    const answered = new Set(
      unclaimed.length === 0
        ? []
        : (
            await tx.messagePart.findMany({
              where: { carrierMessageId: { in: unclaimed }, status: { not: "wait_dlr" } },
              select: { carrierMessageId: true },
            })
          ).map((p) => p.carrierMessageId),
    );
    const sdrs: SdrRow[] = [];
    const touched = new Map<string, { numSegments: number; partsSubmitted: number }>();
    for (const receipt of receipts) {
      const part = byId.get(receipt.carrierMessageId);
      if (!part) {
        // Not known yet: a receipt may overtake the commit of its own submit (or, on PostgreSQL, a part committed
        // after the claim began); it is tried again like an unknown one.
        if (claimed.has(receipt.carrierMessageId) || answered.has(receipt.carrierMessageId)) outcome.duplicates += 1;
        else outcome.unknown.push(receipt);
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
      recorded.push(receipt.status);
    }
    await insertSdrs(tx, sdrs);
    await enqueueDeliveryStatusEvents(tx, sdrs);
    await settleMessages(tx, touched);
    return outcome;
  });
  const counter = metrics().receipts;
  for (const status of recorded) counter.inc({ status });
  return result;
}

/** Sets waiting parts' answers; returns the carrier ids of the parts this statement changed. */
async function claimParts(tx: Tx, carrierIds: string[], status: ReceiptStatus, at: Date): Promise<string[]> {
  const claimed: string[] = [];
  for (let offset = 0; offset < carrierIds.length; offset += 10_000) {
    const chunk = carrierIds.slice(offset, offset + 10_000);
    const values: unknown[] = [boundValue("text", status), boundValue("date", at)];
    const list = chunk.map((id) => (values.push(id), placeholder(values.length, "text"))).join(", ");
    const rows = await tx.$queryRawUnsafe<{ carrierMessageId: string }[]>(
      `UPDATE "MessagePart" SET "status" = ${placeholder(1, "text")}, "receiptAt" = ${placeholder(2, "date")}
       WHERE "status" = 'wait_dlr' AND "carrierMessageId" IN (${list}) RETURNING "carrierMessageId"`,
      ...values,
    );
    for (const row of rows) claimed.push(row.carrierMessageId);
  }
  return claimed;
}

/** Sets the listing status of messages whose parts are all out and answered. */
export async function settleMessages(
  tx: Tx,
  messages: Map<string, { numSegments: number; partsSubmitted: number }>,
): Promise<void> {
  const complete = [...messages].filter(([, m]) => m.partsSubmitted >= m.numSegments).map(([id]) => id);
  if (complete.length === 0) return;
  if (dbProvider() === "postgresql") {
    // Two transactions answering two parts of one message would each read the other's part as still waiting (each
    // statement sees what was committed when it began) and neither would settle it. Locking the messages first, in
    // one order, makes the second wait for the first and then read its part's answer. (NO KEY UPDATE: the SDRs
    // inserted before hold key-share locks on their message, which a plain FOR UPDATE would deadlock against.)
    await tx.$queryRaw(
      Prisma.sql`SELECT "id" FROM "Message" WHERE "id" IN (${Prisma.join(complete)}) ORDER BY "id" FOR NO KEY UPDATE`,
    );
  }
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
