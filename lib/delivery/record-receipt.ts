import type { DeliveryReceipt, ReceiptStatus } from "../carriers/carrier";
import type { SdrRow } from "../db/insert-rows";
import { writeTransaction, type Steps } from "../db/steps";
import { recordTransitions, sdrRow, type MessageTransition } from "../messaging/record-transitions";
import { metrics } from "../metrics/define-metrics";
import { finalStatus } from "./final-status";
import {
  answeredPartsSteps,
  claimPartsSteps,
  lockedPartStatusesSteps,
  partsWithMessagesSteps,
  type AnsweredPartRow,
} from "./delivery-queries";

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
  // The outcomes this batch recorded, counted once it is committed.
  let recorded: ReceiptStatus[] = [];
  const result = await writeTransaction(function* () {
    const batch = yield* recordReceiptSteps(receipts, stamp);
    recorded = batch.recorded;
    return batch.outcome;
  });
  const counter = metrics().receipts;
  for (const status of recorded) counter.inc({ status });
  return result;
}

function* recordReceiptSteps(
  receipts: DeliveryReceipt[],
  stamp: Date,
): Steps<{ outcome: ReceiptOutcome; recorded: ReceiptStatus[] }> {
  const byStatus = new Map<ReceiptStatus, string[]>();
  for (const r of receipts) byStatus.set(r.status, [...(byStatus.get(r.status) ?? []), r.carrierMessageId]);
  const recorded: ReceiptStatus[] = [];
  // The parts this batch answers are the ones its own UPDATE changed: a receipt recorded by another batch at the
  // same moment (a carrier repeating itself to two sessions) is a duplicate here, whatever the clocks say.
  const claimed = new Set<string>();
  for (const [status, ids] of byStatus) for (const id of yield* claimPartsSteps(ids, status, stamp)) claimed.add(id);
  const parts: AnsweredPartRow[] = yield* partsWithMessagesSteps([...claimed]);
  const byId = new Map(parts.map((p) => [p.carrierMessageId, p]));
  const outcome: ReceiptOutcome = { recorded: 0, duplicates: 0, unknown: [] };
  // Of the others, those whose part exists and has its answer are repeats; the rest are not (yet) known.
  const answered = yield* answeredPartsSteps(
    receipts.filter((r) => !claimed.has(r.carrierMessageId)).map((r) => r.carrierMessageId),
  );
  const sdrs: SdrRow[] = [];
  const touched = new Map<string, MessageProgress>();
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
    const at = receipt.receivedAt.getTime();
    const segmentNumber = Number(part.segmentNumber);
    sdrs.push(
      sdrRow(part.id, part.accountId, receipt.status, at, {
        segmentNumber,
        statusDetails: receipt.statusMsg.trim(),
        referenceId: part.referenceId,
      }),
      sdrRow(part.id, part.accountId, "dlr_received", at, {
        segmentNumber,
        statusDetails: `err:${receipt.carrierCode}`,
        referenceId: part.referenceId,
      }),
    );
    touched.set(part.id, { numSegments: Number(part.numSegments), partsSubmitted: Number(part.partsSubmitted) });
    outcome.recorded += 1;
    recorded.push(receipt.status);
  }
  yield* recordTransitions({ changes: yield* settleSteps(touched), sdrs, at: new Date() });
  return { outcome, recorded };
}

/** What settling a message needs: its parts, and how many of them were handed to the carrier. */
export interface MessageProgress {
  numSegments: number;
  partsSubmitted: number;
}

/**
 * The final status of the messages whose parts are all out and answered (their parts' rows read under a lock on
 * PostgreSQL, see lockedPartStatusesSteps), one transition per status, for recordTransitions to write.
 */
export function* settleSteps(messages: Map<string, MessageProgress>): Steps<MessageTransition[]> {
  const complete = [...messages].filter(([, m]) => m.partsSubmitted >= m.numSegments).map(([id]) => id);
  if (complete.length === 0) return [];
  const statuses = new Map<string, ReceiptStatus[]>();
  const waiting = new Set<string>();
  for (const p of yield* lockedPartStatusesSteps(complete)) {
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
  return [...byFinal].map(([status, ids]) => ({ set: { status }, ids }));
}
