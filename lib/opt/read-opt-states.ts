import { hotRead } from "../db/hot-read";
import { optStatesQuery } from "./opt-queries";

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
  // One raw statement on the send path's hot connection (lib/db/hot-read.ts): a Prisma findMany cost several times
  // more of the main thread per send.
  for (const row of await hotRead<Row>((dialect) => optStatesQuery(dialect, accountId, numbers))) add(row);
  return states;
}

/** The decision's `optStatus`: "" without optLogic; else in, out, or notIn (no opt record). */
export function optStatusOf(optLogic: boolean, state: DestinationOpt | undefined): "" | "in" | "out" | "notIn" {
  if (!optLogic) return "";
  if (state?.status === "in" || state?.status === "out") return state.status;
  return "notIn";
}
