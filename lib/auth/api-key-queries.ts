import type { DatabaseProvider } from "../env";
import type { HotQuery } from "../db/hot-read";
import { sqliteBound } from "../db/insert-rows";

/** A key as its lookup reads it: `expiresAt` as SQLite stores it (ISO 8601 text), or PostgreSQL's epoch milliseconds. */
export interface KeyRow {
  id: string;
  accountId: string;
  revoked: boolean | number;
  expiresAt: string | number | null;
}

/** When the key expires, in milliseconds since the epoch; null when it never does. */
export function expiresAtMs(row: KeyRow): number | null {
  if (row.expiresAt === null) return null;
  const ms = typeof row.expiresAt === "number" ? row.expiresAt : Date.parse(row.expiresAt);
  // An expiry that cannot be read (a row edited by hand) counts as passed: the key is refused, not kept for good.
  return Number.isNaN(ms) ? 0 : ms;
}

/**
 * The key with this hash (no row when none has it): read on an API request whose key is not cached. PostgreSQL's
 * `timestamp(3)` holds UTC without a zone, so its expiry comes back as epoch milliseconds rather than as a `Date` the
 * driver would read in the server's own time zone.
 */
export function keyByHashQuery(dialect: DatabaseProvider, hash: string): HotQuery {
  return dialect === "sqlite"
    ? {
        name: "key-by-hash",
        text: `SELECT "id", "accountId", "revokedAt" IS NOT NULL AS "revoked", "expiresAt" FROM "ApiKey" WHERE "hash" = ?`,
        values: [hash],
      }
    : {
        name: "key-by-hash",
        text: `SELECT "id", "accountId", "revokedAt" IS NOT NULL AS "revoked",
                 (extract(epoch FROM "expiresAt") * 1000)::float8 AS "expiresAt"
               FROM "ApiKey" WHERE "hash" = $1`,
        values: [hash],
      };
}

/** The key's last use, written at most once a minute per key. */
export function keyUsedQuery(dialect: DatabaseProvider, apiKeyId: string, at: Date): HotQuery {
  return dialect === "sqlite"
    ? {
        name: "key-used",
        text: `UPDATE "ApiKey" SET "lastUsedAt" = ? WHERE "id" = ?`,
        values: [sqliteBound("date", at), apiKeyId],
      }
    : {
        name: "key-used",
        text: `UPDATE "ApiKey" SET "lastUsedAt" = $1::timestamp(3) WHERE "id" = $2`,
        values: [at.toISOString(), apiKeyId],
      };
}
