import { ApiError } from "./api-error";
import { hotRead, hotWrite } from "../db/hot-read";
import { env } from "../env";
import { API_KEY_PATTERN, hashApiKey } from "../auth/api-keys";
import { expiresAtMs, keyByHashQuery, keyUsedQuery, type KeyRow } from "../auth/api-key-queries";

export interface ApiPrincipal {
  accountId: string;
  apiKeyId: string;
}

interface CachedKey {
  principal: ApiPrincipal;
  expiresAt: number | null;
  checkedAt: number;
}

// Keys are read from the database at most once per API_KEY_CACHE_SECONDS per process: a revoked key stops
// working within that time. Unknown keys are never cached, so a new key works at once.
const cache = new Map<string, CachedKey>();
const hashes = new Map<string, string>();

function rememberHash(key: string): string {
  const hash = hashApiKey(key);
  if (hashes.size > 10_000) hashes.clear();
  hashes.set(key, hash);
  return hash;
}
const LAST_USED_WRITE_INTERVAL_MS = 60_000;
const lastUsedWritten = new Map<string, number>();

async function lookupKey(key: string, now: number): Promise<ApiPrincipal | null> {
  if (!API_KEY_PATTERN.test(key)) return null;
  const ttl = env().API_KEY_CACHE_SECONDS * 1000;
  // Keyed by the hash, which is computed once per key and cached with the entry's key text.
  const hash = hashes.get(key) ?? rememberHash(key);
  const hit = cache.get(hash);
  if (hit && now - hit.checkedAt < ttl) {
    return hit.expiresAt !== null && hit.expiresAt <= now ? null : hit.principal;
  }
  // A prepared statement on the hot-path connection (Prisma's findUnique cost about a millisecond of the event loop).
  const [row] = await hotRead<KeyRow>((dialect) => keyByHashQuery(dialect, hash));
  if (!row || row.revoked) {
    cache.delete(hash);
    return null;
  }
  const entry: CachedKey = {
    principal: { accountId: row.accountId, apiKeyId: row.id },
    expiresAt: expiresAtMs(row),
    checkedAt: now,
  };
  if (cache.size > 10_000) cache.clear();
  cache.set(hash, entry);
  return entry.expiresAt !== null && entry.expiresAt <= now ? null : entry.principal;
}

// lastUsedAt is informational: written at most once a minute per key, off the request's critical path and off the
// event loop (through Prisma, the first write after a start or a bulk load held a request for 10–30 ms).
function recordUse(principal: ApiPrincipal, now: number): void {
  const last = lastUsedWritten.get(principal.apiKeyId) ?? 0;
  if (now - last < LAST_USED_WRITE_INTERVAL_MS) return;
  lastUsedWritten.set(principal.apiKeyId, now);
  hotWrite((dialect) => keyUsedQuery(dialect, principal.apiKeyId, new Date(now))).catch(() =>
    lastUsedWritten.delete(principal.apiKeyId),
  );
}

function parseBasic(header: string): { user: string; password: string } | null {
  const match = /^Basic\s+([A-Za-z0-9+/=_-]+)\s*$/i.exec(header);
  if (!match) return null;
  const decoded = Buffer.from(match[1]!, "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  if (colon < 0) return null;
  return { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/**
 * Runs the key lookup's statement once with a hash no key has, at start-up: the hot-path connection is opened and the
 * statement prepared (on PostgreSQL, on one connection of the pool), which the first API call after a start would
 * otherwise wait for.
 */
export async function warmKeyLookup(): Promise<void> {
  await hotRead((dialect) => keyByHashQuery(dialect, "0".repeat(64)));
}

/**
 * The decision: header `apikey: <key>` or HTTP Basic `accountId:key`; either is enough, and when both are sent
 * both must be valid for the same account. Anything else is 401 Unauthorized.
 */
export async function authenticate(headers: Headers): Promise<ApiPrincipal> {
  const now = Date.now();
  const apikey = headers.get("apikey");
  const authorization = headers.get("authorization");
  if (apikey === null && authorization === null) throw new ApiError("Unauthorized");

  let principal: ApiPrincipal | null = null;
  if (apikey !== null) {
    principal = await lookupKey(apikey.trim(), now);
    if (!principal) throw new ApiError("Unauthorized");
  }
  if (authorization !== null) {
    const basic = parseBasic(authorization);
    if (!basic) throw new ApiError("Unauthorized");
    const viaBasic = await lookupKey(basic.password, now);
    if (!viaBasic || viaBasic.accountId !== basic.user) throw new ApiError("Unauthorized");
    if (principal && principal.accountId !== viaBasic.accountId) throw new ApiError("Unauthorized");
    principal ??= viaBasic;
  }
  recordUse(principal!, now);
  return principal!;
}

export function assertAccount(principal: ApiPrincipal, accountId: string): void {
  if (principal.accountId !== accountId) throw new ApiError("Forbidden");
}
