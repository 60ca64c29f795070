import { db, dbProvider } from "../db/client";
import { readListing } from "../db/listing-reader";
import { sqliteIndexedBy } from "../db/insert-rows";
import { inQueueSql } from "../delivery/delivery-queries";

// The statements behind the deployment-wide gauges. On SQLite they run on a listing reader thread
// (lib/db/listing-reader.ts), since better-sqlite3 blocks the thread it runs on: a scrape does not hold up the
// server's requests. On PostgreSQL the database does the work. Rows come as the database gives them (counts may be
// BigInts, dates text on SQLite).

export interface QueueRow {
  from: string;
  depth: bigint | number;
  numbers: bigint | number;
  messages: bigint | number;
  oldest: Date | string | null;
}

export interface BacklogRow {
  events: bigint | number;
  due: Date | string | null;
}

function read<R>(sql: string): Promise<R[]> {
  return dbProvider() === "sqlite" ? (readListing(sql, []) as Promise<R[]>) : db().$queryRawUnsafe<R[]>(sql);
}

/**
 * The waiting messages counted by number from the queue's partial index (Message_queue_idx: its condition spelled as
 * it is written there, which the planners need to see to use it), the `limit` numbers with the most kept, the totals
 * over all numbers beside them, and only for those numbers the oldest waiting message (the same index).
 */
export function readQueues(limit: number): Promise<QueueRow[]> {
  return read<QueueRow>(
    `WITH "top" AS (
       SELECT "fromNumber", COUNT(*) AS "depth", COUNT(*) OVER () AS "numbers",
         CAST(SUM(COUNT(*)) OVER () AS BIGINT) AS "messages"
       FROM "Message"${sqliteIndexedBy("Message_queue_idx")} WHERE ${inQueueSql()}
       GROUP BY "fromNumber" ORDER BY COUNT(*) DESC, "fromNumber" LIMIT ${limit})
     SELECT "top"."fromNumber" AS "from", "depth", "numbers", "messages",
       (SELECT MIN(m."createdAt") FROM "Message" m${sqliteIndexedBy("Message_queue_idx")}
         WHERE m."fromNumber" = "top"."fromNumber" AND ${inQueueSql("m")}) AS "oldest"
     FROM "top" ORDER BY "depth" DESC, "from"`,
  );
}

/** The webhook backlog: its count and its earliest due attempt, from the index on status and next attempt alone. */
export function readWebhookBacklog(): Promise<BacklogRow[]> {
  return read<BacklogRow>(
    `SELECT COUNT(*) AS "events", MIN("nextAttemptAt") AS "due" FROM "WebhookEvent" WHERE "status" = 'pending'`,
  );
}

/** Every account's carrier connections and their state as the workers last wrote it (a small table). */
export function readConnectionStates(): Promise<
  { accountId: string; name: string; type: string; enabled: boolean; state: string }[]
> {
  return db().carrierConnection.findMany({
    select: { accountId: true, name: true, type: true, enabled: true, state: true },
  });
}
