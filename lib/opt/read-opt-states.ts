import { db } from "../db/client";

export interface DestinationOpt {
  /** "in", "out", or "" when only a footer was recorded. */
  status: string;
  lastFooterAt: Date | null;
}

// SQLite allows 999 parameters a statement; a 1,000-destination send is read in two.
const CHUNK = 900;

/**
 * The opt state of a send's destinations for one account, in one query on the primary key (accountId, number)
 * for up to 900 destinations. Not cached: a STOP must hold from the moment it is stored, and the phone, the
 * worker that received it and the server that sends may be different processes.
 */
export async function readOptStates(accountId: string, numbers: string[]): Promise<Map<string, DestinationOpt>> {
  const states = new Map<string, DestinationOpt>();
  for (let i = 0; i < numbers.length; i += CHUNK) {
    const rows = await db().optState.findMany({
      where: { accountId, number: { in: numbers.slice(i, i + CHUNK) } },
      select: { number: true, status: true, lastFooterAt: true },
    });
    for (const row of rows) states.set(row.number, { status: row.status, lastFooterAt: row.lastFooterAt });
  }
  return states;
}

/** The decision's `optStatus`: "" without optLogic; else in, out, or notIn (no opt record). */
export function optStatusOf(optLogic: boolean, state: DestinationOpt | undefined): "" | "in" | "out" | "notIn" {
  if (!optLogic) return "";
  if (state?.status === "in" || state?.status === "out") return state.status;
  return "notIn";
}
