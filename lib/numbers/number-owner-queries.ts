import type { DatabaseProvider } from "../env";
import type { HotQuery } from "../db/hot-read";

/** The account that holds a number (no row when none does): read on every send whose sender is not cached. */
export function numberOwnerQuery(dialect: DatabaseProvider, digits: string): HotQuery {
  return {
    name: "number-owner",
    text: `SELECT "accountId" FROM "PhoneNumber" WHERE "number" = ${dialect === "sqlite" ? "?" : "$1"}`,
    values: [digits],
  };
}
