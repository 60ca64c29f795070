import { db, dbProvider } from "../db/client";
import type { DeliveryReceipt, ReceiptStatus } from "../carriers/carrier";
import { boundValue, chunks, placeholder, placeholderList, type SdrRow } from "../db/insert-rows";
import { insertSdrsSteps } from "../messaging/write-sdrs";
import { query, runSteps, writeTransaction, type Steps } from "../db/steps";
import { sdr } from "./sdr-writer";
import { finalStatus } from "./final-status";
import { updateMessages } from "./update-messages";
import { enqueueDeliveryStatusEventSteps } from "../webhooks/enqueue-events";
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

interface ClaimedPart {
  carrierMessageId: string;
  segmentNumber: number;
  id: string;
  accountId: string;
  referenceId: string | null;
  numSegments: number;
  partsSubmitted: number;
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
  for (const [status, ids] of byStatus) for (const id of yield* claimParts(ids, status, stamp)) claimed.add(id);
  const parts: ClaimedPart[] = [];
  for (const chunk of chunks([...claimed])) {
    const values: unknown[] = [];
    parts.push(
      ...(yield* query<ClaimedPart>(
        `SELECT p."carrierMessageId", p."segmentNumber", m."id", m."accountId", m."referenceId", m."numSegments",
                m."partsSubmitted"
         FROM "MessagePart" p JOIN "Message" m ON m."id" = p."messageId"
         WHERE p."carrierMessageId" IN (${placeholderList(values, chunk)})`,
        values,
      )),
    );
  }
  const byId = new Map(parts.map((p) => [p.carrierMessageId, p]));
  const outcome: ReceiptOutcome = { recorded: 0, duplicates: 0, unknown: [] };
  const unclaimed = receipts.filter((r) => !claimed.has(r.carrierMessageId)).map((r) => r.carrierMessageId);
  // Of the others, those whose part exists and has its answer are repeats; the rest are not (yet) known.
  const answered = new Set<string>();
  for (const chunk of chunks(unclaimed)) {
    const values: unknown[] = [];
    const rows = yield* query<{ carrierMessageId: string }>(
      `SELECT "carrierMessageId" FROM "MessagePart"
       WHERE "carrierMessageId" IN (${placeholderList(values, chunk)}) AND "status" <> 'wait_dlr'`,
      values,
    );
    for (const row of rows) answered.add(row.carrierMessageId);
  }
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
    const at = receipt.receivedAt.getTime();
    const segmentNumber = Number(part.segmentNumber);
    sdrs.push(
      sdr(part.id, part.accountId, receipt.status, at, {
        segmentNumber,
        statusDetails: receipt.statusMsg.trim(),
        referenceId: part.referenceId,
      }),
      sdr(part.id, part.accountId, "dlr_received", at, {
        segmentNumber,
        statusDetails: `err:${receipt.carrierCode}`,
        referenceId: part.referenceId,
      }),
    );
    touched.set(part.id, { numSegments: Number(part.numSegments), partsSubmitted: Number(part.partsSubmitted) });
    outcome.recorded += 1;
    recorded.push(receipt.status);
  }
  yield* insertSdrsSteps(sdrs);
  yield* enqueueDeliveryStatusEventSteps(sdrs);
  yield* settleMessageSteps(touched);
  return { outcome, recorded };
}

/** Sets waiting parts' answers; returns the carrier ids of the parts this statement changed. */
function* claimParts(carrierIds: string[], status: ReceiptStatus, at: Date): Steps<string[]> {
  const claimed: string[] = [];
  for (const chunk of chunks(carrierIds)) {
    const values: unknown[] = [boundValue("text", status), boundValue("date", at)];
    const rows = yield* query<{ carrierMessageId: string }>(
      `UPDATE "MessagePart" SET "status" = ${placeholder(1, "text")}, "receiptAt" = ${placeholder(2, "date")}
       WHERE "status" = 'wait_dlr' AND "carrierMessageId" IN (${placeholderList(values, chunk)})
       RETURNING "carrierMessageId"`,
      values,
    );
    for (const row of rows) claimed.push(row.carrierMessageId);
  }
  return claimed;
}

/** Sets the listing status of messages whose parts are all out and answered. */
export function* settleMessageSteps(
  messages: Map<string, { numSegments: number; partsSubmitted: number }>,
): Steps<void> {
  const complete = [...messages].filter(([, m]) => m.partsSubmitted >= m.numSegments).map(([id]) => id);
  if (complete.length === 0) return;
  const statuses = new Map<string, ReceiptStatus[]>();
  const waiting = new Set<string>();
  for (const chunk of chunks(complete)) {
    if (dbProvider() === "postgresql") {
      // Two transactions answering two parts of one message would each read the other's part as still waiting
      // (each statement sees what was committed when it began) and neither would settle it. Locking the messages
      // first, in one order, makes the second wait for the first and then read its part's answer. (NO KEY UPDATE:
      // the SDRs inserted before hold key-share locks on their message, which a plain FOR UPDATE would deadlock
      // against.)
      const values: unknown[] = [];
      yield* query(
        `SELECT "id" FROM "Message" WHERE "id" IN (${placeholderList(values, chunk)}) ORDER BY "id" FOR NO KEY UPDATE`,
        values,
      );
    }
    const values: unknown[] = [];
    const parts = yield* query<{ messageId: string; status: string }>(
      `SELECT "messageId", "status" FROM "MessagePart" WHERE "messageId" IN (${placeholderList(values, chunk)})`,
      values,
    );
    for (const p of parts) {
      if (p.status === "wait_dlr") waiting.add(p.messageId);
      else statuses.set(p.messageId, [...(statuses.get(p.messageId) ?? []), p.status as ReceiptStatus]);
    }
  }
  const byFinal = new Map<ReceiptStatus, string[]>();
  for (const id of complete) {
    const answered = statuses.get(id) ?? [];
    if (waiting.has(id) || answered.length < messages.get(id)!.numSegments) continue;
    const status = finalStatus(answered);
    byFinal.set(status, [...(byFinal.get(status) ?? []), id]);
  }
  const now = new Date();
  for (const [status, ids] of byFinal) yield* updateMessages({ status }, ids, now);
}

/** The one-message form, for callers settling a single message in their own Prisma transaction. */
export function settleMessage(tx: Tx, messageId: string, numSegments: number, partsSubmitted: number): Promise<void> {
  return runSteps(tx, settleMessageSteps(new Map([[messageId, { numSegments, partsSubmitted }]])));
}
