import { db, dbProvider } from "../db/client";
import { placeholder } from "../db/insert-rows";
import { readListing } from "../db/listing-reader";

// The SQL of the message tally: every account's messages counted by hour (UTC, "2026-11-27T09"), direction, type and
// status (the message_tally migrations). On PostgreSQL the database's own triggers append every write's changes to
// "MessageTallyDelta" in its transaction, and foldTallyDeltas() moves those rows into "MessageTally". On SQLite the
// body indexer's thread counts new messages in behind the sends up to a mark, and triggers move the counts of the
// messages below it on status changes and deletes. A count reads the tally and what is pending in one statement, so
// it sees one snapshot of them.

/** The tally's own filters: the account, and any of direction, type and status; hours from `fromHour` up to before `toHour`. */
export interface TallyFilter {
  accountId: string;
  direction?: string;
  messageType?: string;
  status?: string;
  fromHour?: string;
  toHour?: string;
}

export interface HourCount {
  hour: string;
  n: number;
}

/** The tally's rows of the filter and the pending ones beside them, as one `SELECT "hour", "n"` (UNION ALL). */
function tallyRows(filter: TallyFilter): { sql: string; params: unknown[] } {
  const params: unknown[] = [];
  // Parameters in SQL order (SQLite's are positional): each part binds its own.
  const where = (hour: string, column = (name: string) => `"${name}"`): string => {
    const conditions: string[] = [];
    const bind = (expression: string, value: string | undefined, op = "=") => {
      if (value === undefined) return;
      params.push(value);
      conditions.push(`${expression} ${op} ${placeholder(params.length, "text")}`);
    };
    bind(column("accountId"), filter.accountId);
    bind(column("direction"), filter.direction);
    bind(column("messageType"), filter.messageType);
    bind(column("status"), filter.status);
    bind(hour, filter.fromHour, ">=");
    bind(hour, filter.toHour, "<");
    return conditions.join(" AND ");
  };
  const tally = `SELECT "hour", "n" FROM "MessageTally" WHERE ${where(`"hour"`)}`;
  // PostgreSQL: the changes not folded yet. SQLite: the messages above the tally's mark, not counted into it yet,
  // found by their rowids (the unary + keeps the planner off the account's indexes, which would read all its rows).
  const pending =
    dbProvider() === "postgresql"
      ? `SELECT "hour", "n" FROM "MessageTallyDelta" WHERE ${where(`"hour"`)}`
      : `SELECT substr("createdAt", 1, 13) AS "hour", 1 AS "n" FROM "Message"
         WHERE rowid > (SELECT "talliedUpTo" FROM "MessageTallyState" WHERE "id" = 1)
           AND ${where(`+substr("createdAt", 1, 13)`, (name) => `+"${name}"`)}`;
  return { sql: `${tally} UNION ALL ${pending}`, params };
}

/** Matching messages per hour, hours in ascending order, hours without any left out. */
export async function readHourCounts(filter: TallyFilter): Promise<HourCount[]> {
  const { sql, params } = tallyRows(filter);
  const rows = await readListing(
    `SELECT "hour", sum("n") AS "n" FROM (${sql}) t GROUP BY "hour" HAVING sum("n") <> 0 ORDER BY "hour"`,
    params,
  );
  return rows.map((row) => ({ hour: String(row.hour), n: Number(row.n) }));
}

/** The number of matching messages (readHourCounts summed, by the database). */
export async function readTallyTotal(filter: TallyFilter): Promise<number> {
  const { sql, params } = tallyRows(filter);
  const [row] = await readListing(`SELECT coalesce(sum("n"), 0) AS "n" FROM (${sql}) t`, params);
  return Number(row?.n ?? 0);
}

/** A key of its own for pg_try_advisory_xact_lock: one fold at a time across the deployment. */
const FOLD_LOCK = 0x7a11_7a11;

/**
 * PostgreSQL: moves the appended changes into "MessageTally" in one statement (so a count never sees them twice or
 * not at all), unless another process is folding. Returns how many changes were moved (none on SQLite, which appends none).
 */
export async function foldTallyDeltas(): Promise<number> {
  if (dbProvider() !== "postgresql") return 0;
  const keys = `"accountId", "hour", "direction", "messageType", "status"`;
  return db().$executeRawUnsafe(
    `WITH folding AS (SELECT pg_try_advisory_xact_lock(${FOLD_LOCK}) AS locked),
     moved AS (DELETE FROM "MessageTallyDelta" WHERE (SELECT locked FROM folding) RETURNING *)
     INSERT INTO "MessageTally" AS t (${keys}, "n")
     SELECT ${keys}, sum("n") FROM moved GROUP BY ${keys} ORDER BY ${keys}
     ON CONFLICT (${keys}) DO UPDATE SET "n" = t."n" + excluded."n"`,
  );
}
