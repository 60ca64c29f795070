import { hotPool } from "../db/pg-hot-path";
import Database from "better-sqlite3";
import { dbProvider } from "../db/client";
import { sqliteFilePath } from "../db/sqlite-path";
import { env } from "../env";

export interface DestinationOpt {
  /** "in", "out", or "" when only a footer was recorded. */
  status: string;
  lastFooterAt: Date | null;
}

interface Row {
  number: string;
  status: string;
  lastFooterAt: string | Date | null;
}

// On SQLite the send path reads through a connection of its own with one prepared statement: a Prisma query costs
// about a millisecond of the main thread here, which cut single-destination sends by a third (bench:send); this
// costs microseconds. WAL lets it read while the send writer's thread commits.
const holder = globalThis as unknown as { __parleyOptReader?: { url: string; read: (a: string, n: string) => Row[] } };

function sqliteReader(): (accountId: string, numbersJson: string) => Row[] {
  const url = env().DATABASE_URL;
  if (holder.__parleyOptReader?.url !== url) {
    const sqlite = new Database(sqliteFilePath(url), { readonly: true, timeout: 10_000 });
    const statement = sqlite.prepare<[string, string], Row>(
      `SELECT "number", "status", "lastFooterAt" FROM "OptState"
        WHERE "accountId" = ? AND "number" IN (SELECT "value" FROM json_each(?))`,
    );
    holder.__parleyOptReader = { url, read: (accountId, numbers) => statement.all(accountId, numbers) };
  }
  return holder.__parleyOptReader.read;
}

/**
 * The opt state of a send's destinations for one account, in one query on the primary key (accountId, number).
 * Not cached: a STOP must hold from the moment it is stored, and the phone's STOP, the worker that received it
 * and the server that sends may be in different processes.
 */
export async function readOptStates(accountId: string, numbers: string[]): Promise<Map<string, DestinationOpt>> {
  const states = new Map<string, DestinationOpt>();
  if (numbers.length === 0) return states;
  const add = (row: Row) =>
    states.set(row.number, {
      status: row.status,
      lastFooterAt: row.lastFooterAt === null ? null : new Date(row.lastFooterAt),
    });
  if (dbProvider() === "sqlite") {
    for (const row of sqliteReader()(accountId, JSON.stringify(numbers))) add(row);
    return states;
  }
  // PostgreSQL: one raw statement with the numbers as one array parameter (a Prisma findMany cost several times more
  // of the main thread per send).
  const { rows } = await hotPool().query<Row>({
    name: "opt-states",
    text: `SELECT "number", "status", to_char("lastFooterAt", 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "lastFooterAt" FROM "OptState" WHERE "accountId" = $1 AND "number" = ANY($2::text[])`,
    values: [accountId, numbers],
  });
  for (const row of rows) add(row);
  return states;
}

/** The decision's `optStatus`: "" without optLogic; else in, out, or notIn (no opt record). */
export function optStatusOf(optLogic: boolean, state: DestinationOpt | undefined): "" | "in" | "out" | "notIn" {
  if (!optLogic) return "";
  if (state?.status === "in" || state?.status === "out") return state.status;
  return "notIn";
}
