import { hash } from "node:crypto";
import type { SameTextEntry, SameTextRule } from "../db/send-batch";

export type { SameTextEntry };

// The decision: the service marks a message bulk on its own when the same body goes from one account to more than
// 20 destinations within 10 minutes. Counted for the whole deployment: per account, text and second, in the
// database (committed with the send's group commit) or in Redis when REDIS_URL is set; same-text-counter.ts is the
// one interface to both and chooses between them.
export const AUTO_BULK_DESTINATIONS = 20;
export const AUTO_BULK_WINDOW_SECONDS = 600;
/** The queued SDR's statusDetails of a message made bulk by this rule. */
export const AUTO_BULK_DETAIL = "bulk: the same text went to more than 20 destinations within 10 minutes";
/**
 * Each bucket of the window holds at least one destination, so once this many buckets are in the window the sum is
 * over the threshold whatever they hold: reading the newest `WINDOW_ROWS_NEEDED` is exact and bounded.
 */
export const WINDOW_ROWS_NEEDED = AUTO_BULK_DESTINATIONS + 1;

/** The text as counted: body and media, hashed (the counter never stores a customer's text). */
export function sameTextHash(body: string, media: readonly string[]): string {
  // The one-shot hash: a third of createHash's cost for a text this short (the same digest).
  return hash("sha256", `${body}\0${media.join("\0")}`, "base64url");
}

/** The bucket (second since the epoch) a send at `at` is counted in. */
export function bucketOf(at: number): number {
  return Math.floor(at / 1000);
}

/**
 * The first bucket of the window of a send at `at`. Buckets [start, bucketOf(at)] count: every send in them is less
 * than 600 s old (the oldest bucket begins at most 599.999 s before `at`'s second began), and every send less than
 * 599 s old is in them. So traffic older than 10 minutes never counts and traffic of the last 599 s always does:
 * exact to the second.
 */
export function windowStart(at: number): number {
  return bucketOf(at) - (AUTO_BULK_WINDOW_SECONDS - 1);
}

/** Buckets before this one can no longer count for any send at or after `at`: pruned. */
export function pruneBefore(at: number): number {
  return windowStart(at);
}

export function overThreshold(total: number): boolean {
  return total > AUTO_BULK_DESTINATIONS;
}

/**
 * The window's total for each entry of one batch, in batch order, as the batch's counter statement leaves it:
 * `after` is each touched bucket's count after the batch's increments (by `${accountId} ${textHash} ${bucket}`),
 * `others` each key's sum over the window's other buckets (capped: at most WINDOW_ROWS_NEEDED buckets read, which
 * is enough, see above). An entry counts everything before it in the batch and nothing after it.
 */
export function batchTotals(
  entries: readonly SameTextEntry[],
  after: ReadonlyMap<string, number>,
  others: ReadonlyMap<string, number>,
): number[] {
  const batchSum = new Map<string, number>();
  const touched = new Map<string, Set<number>>();
  for (const e of entries) {
    const key = `${e.accountId} ${e.textHash}`;
    batchSum.set(key, (batchSum.get(key) ?? 0) + e.destinations);
    const buckets = touched.get(key) ?? new Set<number>();
    buckets.add(bucketOf(e.at));
    touched.set(key, buckets);
  }
  const totalAfter = new Map<string, number>();
  for (const [key, buckets] of touched) {
    let total = others.get(key) ?? 0;
    for (const b of buckets) total += after.get(`${key} ${b}`) ?? 0;
    totalAfter.set(key, total);
  }
  const running = new Map<string, number>();
  return entries.map((e) => {
    const key = `${e.accountId} ${e.textHash}`;
    const cumulative = (running.get(key) ?? 0) + e.destinations;
    running.set(key, cumulative);
    return totalAfter.get(key)! - batchSum.get(key)! + cumulative;
  });
}

/** The rule as the group commit applies it in the send's own transaction (lib/db/group-commit.ts). */
export const autoBulkRule: SameTextRule = {
  threshold: AUTO_BULK_DESTINATIONS,
  windowRows: WINDOW_ROWS_NEEDED,
  detail: AUTO_BULK_DETAIL,
  bucketOf,
  windowStart,
  pruneBefore,
  overThreshold,
  batchTotals,
};
