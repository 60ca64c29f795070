import { readTransaction, writeTransaction, type Steps } from "../db/steps";
import { recordTransitions, sdrRow } from "../messaging/record-transitions";
import { expirePartsSteps, overduePartsSteps, type OverduePartRow } from "./delivery-queries";
import { settleSteps, type MessageProgress } from "./record-receipt";

const NOTE = "no delivery receipt within the validity period";
const BATCH = 500;

/**
 * Parts still waiting for a receipt past their message's validity become `expired` (the decision: 48 h default),
 * with an `expired` SDR and event each, and their messages settled like a receipt's, in one transaction a batch.
 * The look is a read of its own, so that the usual case (nothing overdue) takes no write lock on SQLite.
 */
export async function expireOverdueParts(now: number): Promise<number> {
  const overdue = await readTransaction(() => overduePartsSteps(new Date(now), BATCH));
  if (overdue.length > 0) await writeTransaction(() => expireSteps(overdue, now));
  return overdue.length;
}

function* expireSteps(overdue: OverduePartRow[], now: number): Steps<void> {
  // Only the parts still waiting now: a receipt may have answered one since the look.
  const expired = new Set(
    yield* expirePartsSteps(
      overdue.map((p) => p.id),
      new Date(now),
    ),
  );
  const parts = overdue.filter((p) => expired.has(p.id));
  if (parts.length === 0) return;
  const messages = new Map<string, MessageProgress>();
  for (const p of parts) {
    messages.set(p.messageId, { numSegments: Number(p.numSegments), partsSubmitted: Number(p.partsSubmitted) });
  }
  const sdrs = parts.map((p) =>
    sdrRow(p.messageId, p.accountId, "expired", now, {
      segmentNumber: Number(p.segmentNumber),
      statusDetails: NOTE,
      referenceId: p.referenceId,
    }),
  );
  yield* recordTransitions({ changes: yield* settleSteps(messages), sdrs, at: new Date() });
}
