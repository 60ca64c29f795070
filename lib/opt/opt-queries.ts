import type { HotQuery } from "../db/hot-read";
import type { DatabaseProvider } from "../env";

// The opt domain's SQL that does not go through Prisma.

/**
 * The opt states of some numbers of one account, in one statement on the primary key (accountId, number); the
 * numbers are one parameter (a JSON array on SQLite, an array on PostgreSQL). lastFooterAt comes back as ISO text.
 */
export function optStatesQuery(dialect: DatabaseProvider, accountId: string, numbers: string[]): HotQuery {
  if (dialect === "sqlite" && numbers.length === 1) {
    // Most sends have one destination: a plain equality on the key costs SQLite half of json_each's set-up
    // (4 against 9 µs a read, measured with another connection committing meanwhile).
    return {
      name: "opt-state",
      text: `SELECT "number", "status", "lastFooterAt" FROM "OptState" WHERE "accountId" = ? AND "number" = ?`,
      values: [accountId, numbers[0]],
    };
  }
  if (dialect === "sqlite") {
    return {
      name: "opt-states",
      text: `SELECT "number", "status", "lastFooterAt" FROM "OptState"
        WHERE "accountId" = ? AND "number" IN (SELECT "value" FROM json_each(?))`,
      values: [accountId, JSON.stringify(numbers)],
    };
  }
  return {
    name: "opt-states",
    text: `SELECT "number", "status", to_char("lastFooterAt", 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "lastFooterAt" FROM "OptState" WHERE "accountId" = $1 AND "number" = ANY($2::text[])`,
    values: [accountId, numbers],
  };
}
