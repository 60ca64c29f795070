import { binder, sqliteIndexedBy } from "../db/insert-rows";
import { query, type Steps } from "../db/steps";

/** An MMS waiting for its media, as the database gives it (SQLite: integers may be BigInts). */
export interface PendingMediaRow {
  id: string;
  accountId: string;
  fromNumber: string;
  media: string;
  referenceId: string | null;
  attempts: number | bigint;
}

/**
 * Up to `limit` messages in one of `statuses` whose media are still to be prepared and due by `now`, oldest first.
 * On the partial index "Message_media_pending_idx" (migration media), named for SQLite: with `mediaState` a bound
 * parameter, or without statistics, its planner read every queued message by status instead, on each pass.
 */
export function* pendingOutboundMediaSteps(
  now: Date,
  statuses: readonly string[],
  limit: number,
): Steps<PendingMediaRow[]> {
  const values: unknown[] = [];
  const bind = binder(values);
  return yield* query<PendingMediaRow>(
    `SELECT "id", "accountId", "fromNumber", "media", "referenceId", "attempts"
     FROM "Message"${sqliteIndexedBy("Message_media_pending_idx")}
     WHERE "mediaState" = 'pending' AND "status" IN (${statuses.map((s) => bind("text", s)).join(", ")})
       AND ("nextAttemptAt" IS NULL OR "nextAttemptAt" <= ${bind("date", now)})
     ORDER BY "createdAt" LIMIT ${Math.floor(limit)}`,
    values,
  );
}
