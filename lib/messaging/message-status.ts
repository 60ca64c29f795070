// The one vocabulary of a message's listing status, in the order a message moves through it, with every predicate
// derived from that order (as pg-boss derives its "before/after" checks from JOB_STATE_ORDER). No imports: the
// browser bundle imports this module as well as the server, the worker and the receipts.

/** Outbound statuses in lifecycle order: waiting, on its way, then one of the outcomes (which share the last rank). */
export const MESSAGE_STATUSES = [
  "queued",
  "sending",
  "sent",
  "delivered",
  "undelivered",
  "failed",
  "expired",
  "rejected",
] as const;
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];

/** The last status a message can still leave: everything after it is an outcome. */
const LAST_PENDING: MessageStatus = "sent";
const FIRST_FINAL = MESSAGE_STATUSES.indexOf(LAST_PENDING) + 1;

/** Statuses after which nothing changes any more: every outcome a part can have (a refused send is `rejected`). */
export const FINAL_STATUSES = MESSAGE_STATUSES.slice(FIRST_FINAL) as FinalStatus[];
export type FinalStatus = "delivered" | "undelivered" | "failed" | "expired" | "rejected";

/** Outcomes that mean the phone did not get it: every final status but delivered. */
export const FAILED_STATUSES = FINAL_STATUSES.filter((s) => s !== "delivered");

/** Statuses of a message still on its way. */
export const PENDING_STATUSES = MESSAGE_STATUSES.slice(0, FIRST_FINAL);

/** Statuses of a message still in the queue: some part not yet handed to the carrier (the worker's work). */
export const QUEUED_STATUSES = MESSAGE_STATUSES.slice(0, MESSAGE_STATUSES.indexOf(LAST_PENDING));

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
 * anything unknown), then 1, 2, 3 for the pending ones, and one shared rank for all the outcomes.
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
