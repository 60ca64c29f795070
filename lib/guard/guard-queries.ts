import { binder } from "../db/insert-rows";
import { execute, query, type Steps } from "../db/steps";

// The guard rails' statements (lib/guard): an account's daily usage, taken and given back in one statement each,
// and the per-minute counts of messages to unusual destinations. Steps, run in the callers' transactions.

export interface UsageRow {
  messages: number;
  segments: number;
}

/**
 * Adds a send's messages and segments to the account's day, only if both stay within their limits (0: no limit).
 * Returns the day's totals after it, or null when it would pass a limit (nothing changes then). One statement, so
 * concurrent sends (from any process) can never take more than the limit between them. The caller checks that the
 * send alone fits: a day's first send is inserted without the check.
 */
export function* takeDailyUsageSteps(input: {
  accountId: string;
  day: string;
  messages: number;
  segments: number;
  messageLimit: number;
  segmentLimit: number;
}): Steps<UsageRow | null> {
  const values: unknown[] = [];
  const bind = binder(values);
  const rows = yield* query<{ messages: number | bigint; segments: number | bigint }>(
    `INSERT INTO "DailyUsage" ("accountId", "day", "messages", "segments")
     VALUES (${bind("text", input.accountId)}, ${bind("text", input.day)}, ${bind("int", input.messages)}, ${bind("int", input.segments)})
     ON CONFLICT ("accountId", "day") DO UPDATE SET
       "messages" = "DailyUsage"."messages" + excluded."messages",
       "segments" = "DailyUsage"."segments" + excluded."segments"
     WHERE (${bind("int", input.messageLimit)} = 0 OR "DailyUsage"."messages" + excluded."messages" <= ${bind("int", input.messageLimit)})
       AND (${bind("int", input.segmentLimit)} = 0 OR "DailyUsage"."segments" + excluded."segments" <= ${bind("int", input.segmentLimit)})
     RETURNING "messages", "segments"`,
    values,
  );
  const row = rows[0];
  return row ? { messages: Number(row.messages), segments: Number(row.segments) } : null;
}

/** Gives back what a send took of its day (its commit failed). */
export function* giveBackDailyUsageSteps(input: {
  accountId: string;
  day: string;
  messages: number;
  segments: number;
}): Steps<void> {
  const values: unknown[] = [];
  const bind = binder(values);
  yield* execute(
    `UPDATE "DailyUsage" SET "messages" = "messages" - ${bind("int", input.messages)},
       "segments" = "segments" - ${bind("int", input.segments)}
     WHERE "accountId" = ${bind("text", input.accountId)} AND "day" = ${bind("text", input.day)}`,
    values,
  );
}

export function* readDailyUsageSteps(accountId: string, day: string): Steps<UsageRow> {
  const values: unknown[] = [];
  const bind = binder(values);
  const rows = yield* query<{ messages: number | bigint; segments: number | bigint }>(
    `SELECT "messages", "segments" FROM "DailyUsage"
     WHERE "accountId" = ${bind("text", accountId)} AND "day" = ${bind("text", day)}`,
    values,
  );
  const row = rows[0];
  return row ? { messages: Number(row.messages), segments: Number(row.segments) } : { messages: 0, segments: 0 };
}

/**
 * Marks the day's warning of one limit as given, if it was not yet and the usage is at `threshold` or more.
 * Returns the usage when this call marked it (the caller then writes the warning event), else null.
 */
export function* markWarnedSteps(input: {
  accountId: string;
  day: string;
  limit: "messages" | "segments";
  threshold: number;
}): Steps<number | null> {
  const column = input.limit === "messages" ? "messages" : "segments";
  const flag = input.limit === "messages" ? "warnedMessages" : "warnedSegments";
  const values: unknown[] = [];
  const bind = binder(values);
  const rows = yield* query<{ used: number | bigint }>(
    `UPDATE "DailyUsage" SET "${flag}" = ${bind("bool", true)}
     WHERE "accountId" = ${bind("text", input.accountId)} AND "day" = ${bind("text", input.day)}
       AND "${flag}" = ${bind("bool", false)} AND "${column}" >= ${bind("int", input.threshold)}
     RETURNING "${column}" AS "used"`,
    values,
  );
  return rows[0] ? Number(rows[0].used) : null;
}

/**
 * Adds messages to unusual destinations to their prefixes' current minute and answers, per prefix, how many the
 * window (minutes `since` to now, this send included) holds. Older minutes are deleted when `pruneBefore` is given.
 */
export function* countBurstSteps(input: {
  accountId: string;
  minute: number;
  since: number;
  counts: Map<string, number>;
  pruneBefore: number | null;
}): Steps<Map<string, number>> {
  if (input.pruneBefore !== null) {
    const values: unknown[] = [];
    const bind = binder(values);
    yield* execute(`DELETE FROM "DestinationBurst" WHERE "minute" < ${bind("int", input.pruneBefore)}`, values);
  }
  const totals = new Map<string, number>();
  for (const [prefix, count] of input.counts) {
    const values: unknown[] = [];
    const bind = binder(values);
    yield* execute(
      `INSERT INTO "DestinationBurst" ("accountId", "prefix", "minute", "count")
       VALUES (${bind("text", input.accountId)}, ${bind("text", prefix)}, ${bind("int", input.minute)}, ${bind("int", count)})
       ON CONFLICT ("accountId", "prefix", "minute") DO UPDATE SET "count" = "DestinationBurst"."count" + excluded."count"`,
      values,
    );
    const read: unknown[] = [];
    const bindRead = binder(read);
    const rows = yield* query<{ total: number | bigint | null }>(
      `SELECT SUM("count") AS "total" FROM "DestinationBurst"
       WHERE "accountId" = ${bindRead("text", input.accountId)} AND "prefix" = ${bindRead("text", prefix)}
         AND "minute" >= ${bindRead("int", input.since)}`,
      read,
    );
    totals.set(prefix, Number(rows[0]?.total ?? 0));
  }
  return totals;
}
