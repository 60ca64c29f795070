// The one vocabulary of a message's listing status, in the order a message moves through it, with every predicate
// derived from that order (as pg-boss derives its "before/after" checks from JOB_STATE_ORDER). No imports: the
// browser bundle imports this module as well as the server, the worker and the receipts.

/**
 * Outbound statuses in lifecycle order: held for review (a burst to unusual destinations, lib/guard), waiting for its
 * time (a scheduled send), waiting in the queue, on its way, then one of the outcomes (which share the last rank).
 */
export const MESSAGE_STATUSES = [
  "held",
  "scheduled",
  "queued",
  "sending",
  "sent",
  "delivered",
  "undelivered",
  "failed",
  "expired",
  "rejected",
  "cancelled",
] as const;
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];

/** The last status a message can still leave: everything after it is an outcome. */
const LAST_PENDING: MessageStatus = "sent";
const FIRST_FINAL = MESSAGE_STATUSES.indexOf(LAST_PENDING) + 1;

/**
 * Statuses after which nothing changes any more: every outcome a part can have (a refused send is `rejected`, one
 * withdrawn before it left `cancelled`).
 */
export const FINAL_STATUSES = MESSAGE_STATUSES.slice(FIRST_FINAL) as FinalStatus[];
export type FinalStatus = "delivered" | "undelivered" | "failed" | "expired" | "rejected" | "cancelled";

/** Outcomes that mean the phone did not get it: every final status but delivered. */
export const FAILED_STATUSES = FINAL_STATUSES.filter((s) => s !== "delivered");

/** Statuses of a message still on its way. */
export const PENDING_STATUSES = MESSAGE_STATUSES.slice(0, FIRST_FINAL);

/**
 * Statuses of a message in the queue: some part not yet handed to the carrier (the worker's work). A scheduled
 * message is not: it joins the queue at its time (lib/delivery/due-messages.ts).
 */
export const QUEUED_STATUSES = MESSAGE_STATUSES.slice(
  MESSAGE_STATUSES.indexOf("queued"),
  MESSAGE_STATUSES.indexOf(LAST_PENDING),
);

/** The note of the `expired` SDRs of a message whose send's validity ran out before it was sent. */
export const VALIDITY_UNSENT_NOTE = "validity period ended before it was sent";

/**
 * Statuses of a message nothing has left of yet, which can still be cancelled (with no part submitted), expires when
 * its validity runs out, and is refused when its destination opts out or its number is released.
 */
export const WAITING_STATUSES: MessageStatus[] = ["held", "scheduled", "queued"];

/** What a campaign's pause, resume and cancel move: a held message stays held until someone reviews it. */
export const CAMPAIGN_WAITING_STATUSES: MessageStatus[] = ["scheduled", "queued"];

/** Whether a message can still be cancelled: waiting, with no part handed to the carrier. */
export function isCancellable(status: string, partsSubmitted: number): boolean {
  return has(WAITING_STATUSES, status) && partsSubmitted === 0;
}

const has = (list: readonly string[], status: string) => list.includes(status);

export function isMessageStatus(status: string): status is MessageStatus {
  return has(MESSAGE_STATUSES, status);
}

export function isFinal(status: string): status is FinalStatus {
  return has(FINAL_STATUSES, status);
}

export function isFailed(status: string): boolean {
  return has(FAILED_STATUSES, status);
}

export function isPending(status: string): boolean {
  return has(PENDING_STATUSES, status);
}

/**
 * A status's place in the order: 0 for one with no delivery to follow ("" or `received`, the inbound ones, and
 * anything unknown), then 1 to 4 for the pending ones, and one shared rank for all the outcomes.
 */
export function statusRank(status: string): number {
  const at = MESSAGE_STATUSES.indexOf(status as MessageStatus);
  if (at < 0) return 0;
  return Math.min(at, FIRST_FINAL) + 1;
}

/** Whether a change from `current` to `next` moves a message forward (statuses never move back). */
export function movesForward(current: string, next: string): boolean {
  return statusRank(next) > statusRank(current);
}
