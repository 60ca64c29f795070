import type { HotQuery } from "../db/hot-read";

/**
 * The newest SDR's id (null in an empty log): where the change feed jumps to while no browser watches this server,
 * on every announcement of the worker's changes (a prepared statement, not a Prisma query each time).
 */
export function lastSdrQuery(): HotQuery {
  return { name: "last-sdr", text: `SELECT max("id") AS "id" FROM "Sdr"`, values: [] };
}
