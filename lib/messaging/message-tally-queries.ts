import { db, dbProvider } from "../db/client";
import { placeholder } from "../db/insert-rows";
import { readListing } from "../db/listing-reader";

// The SQL of the message tally: every account's messages counted by hour (UTC, "2026-11-27T09"), direction, type and
// status, kept by the database's own triggers in the transaction of each write (the message_tally migration). On
// PostgreSQL writes append to "MessageTallyDelta" and foldTallyDeltas() moves those rows into "MessageTally"; a count
// reads both tables in one statement, so it sees one snapshot of them.

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

/** Matching messages per hour, hours in ascending order, hours without any left out. */
export async function readHourCounts(filter: TallyFilter): Promise<HourCount[]> {
  const params: unknown[] = [];
  const where = (): string => {
    const conditions: string[] = [];
    const bind = (column: string, value: string | undefined, op = "=") => {
      if (value === undefined) return;
      params.push(value);
      conditions.push(`"${column}" ${op} ${placeholder(params.length, "text")}`);
    };
    bind("accountId", filter.accountId);
    bind("direction", filter.direction);
    bind("messageType", filter.messageType);
    bind("status", filter.status);
    bind("hour", filter.fromHour, ">=");
    bind("hour", filter.toHour, "<");
    return conditions.join(" AND ");
  };
  const tally = `SELECT "hour", "n" FROM "MessageTally" WHERE ${where()}`;
  // PostgreSQL binds by number: the second table's conditions take parameters of their own.
  const source =
    dbProvider() === "postgresql"
      ? `${tally} UNION ALL SELECT "hour", "n" FROM "MessageTallyDelta" WHERE ${where()}`
      : tally;
  const rows = await readListing(
    `SELECT "hour", sum("n") AS "n" FROM (${source}) t GROUP BY "hour" HAVING sum("n") <> 0 ORDER BY "hour"`,
    params,
  );
  return rows.map((row) => ({ hour: String(row.hour), n: Number(row.n) }));
}

/** A key of its own for pg_try_advisory_xact_lock: one fold at a time across the deployment. */
const FOLD_LOCK = 0x7a11_7a11;

/**
 * PostgreSQL: moves the appended changes into "MessageTally" in one statement (so a count never sees them twice or
 * not at all), unless another process is folding. Returns how many changes were moved.
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
