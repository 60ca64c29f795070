import { binder } from "../db/insert-rows";
import { query, type Steps } from "../db/steps";

/**
 * Whether any inbound medium waits for its fetch and is due by `now` (not leased, or its lease ended): the media
 * loop's look on each pass, a kept statement on the `state, nextAttemptAt` index; most passes find none, and only then
 * is the batch read.
 */
export function* anyPendingInboundMediaSteps(now: Date): Steps<boolean> {
  const values: unknown[] = [];
  const bind = binder(values);
  const rows = yield* query(
    `SELECT 1 FROM "Media"
     WHERE "state" = 'pending' AND ("nextAttemptAt" IS NULL OR "nextAttemptAt" <= ${bind("date", now)})
       AND ("leaseUntil" IS NULL OR "leaseUntil" < ${bind("date", now)})
     LIMIT 1`,
    values,
  );
  return rows.length > 0;
}
