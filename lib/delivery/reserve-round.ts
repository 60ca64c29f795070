import type { Steps } from "../db/steps";
import { QUEUED_STATUSES } from "../messaging/message-status";
import { recordTransitions, sdrRow } from "../messaging/record-transitions";
import type { AccountState, Allocation } from "./plan-round";
import { claimAccountSlotsSteps, stillLeasedSteps } from "./round-queries";

/**
 * The round's claims, before anything is submitted: the accounts' next slots (compare-and-set, so workers sharing an
 * account never both take a slot) and a check that this worker still holds each number's lease. Returns the
 * allocations they keep. A number's own next slot stays in this worker's memory while it holds the number, and is
 * written when it gives the number back: a worker that dies stops renewing its leases, so the next holder starts a
 * whole lease period (30 s) after its last send, which pacing allows. `lost` is told, inside the transaction, of the
 * numbers whose lease this worker no longer holds.
 */
export function* claimRoundSteps(
  workerId: string,
  allocations: Allocation[],
  accounts: Map<string, AccountState>,
  touchedAccounts: Set<string>,
  now: number,
  lost: (numbers: string[]) => void,
): Steps<Allocation[]> {
  const lostAccounts = new Set<string>();
  for (const id of touchedAccounts) {
    if (!(yield* claimAccountSlotsSteps(id, accounts.get(id)!, now))) lostAccounts.add(id);
  }
  const numbers = [...new Set(allocations.map((a) => a.message.from))];
  const stillMine = yield* stillLeasedSteps(workerId, numbers, now);
  lost(numbers.filter((number) => !stillMine.has(number)));
  return allocations.filter((a) => !lostAccounts.has(a.message.accountId) && stillMine.has(a.message.from));
}

/**
 * A `sending` record per part, in a few statements whatever their number (per-row statements through Prisma cost
 * about a millisecond each here). A message taken for its first part is claimed only if it is still waiting: the
 * lease holder is not the only one to change queued messages (a STOP from the destination rejects them), so what the
 * claim did not move to `sending` is not submitted. Returns the parts that may leave.
 */
export function* markSendingSteps(kept: Allocation[], now: number): Steps<Allocation[]> {
  const fresh = kept.filter((a) => a.message.partsSubmitted === 0).map((a) => a.message.messageId);
  const notClaimed = yield* recordTransitions({
    changes: [{ ids: fresh, set: { status: "sending" }, onlyFrom: { status: QUEUED_STATUSES } }],
    sdrs: kept.map(({ message, part }) =>
      sdrRow(message.messageId, message.accountId, "sending", now, { segmentNumber: part.segmentNumber }),
    ),
    at: new Date(now),
  });
  return kept.filter((a) => a.message.partsSubmitted > 0 || !notClaimed.has(a.message.messageId));
}
