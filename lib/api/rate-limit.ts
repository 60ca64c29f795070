import { env } from "../env";
import { metrics } from "../metrics/define-metrics";
import { ApiError } from "./api-error";
import { admitInRedis } from "./rate-limit-redis";
import { admit, type Admission, type RateLimit } from "./admit-request";
import { processSingleton } from "../process-singletons";

// The per-key request rate limit of /v3 (off unless API_RATE_LIMIT_PER_SECOND is set): each API key may make
// `burst` requests at once and then `perSecond` a second; beyond that a request is 429 TooManyRequests with
// Retry-After, and does not count. Each key counts alone, also two keys of one account. Counted in this
// process's memory (with several servers, each server counts alone), or for the whole deployment in Redis when
// REDIS_URL is set.

/** The configured limit, or null when there is none. */
export function configuredRateLimit(): RateLimit | null {
  const e = env();
  if (e.API_RATE_LIMIT_PER_SECOND <= 0) return null;
  return {
    perSecond: e.API_RATE_LIMIT_PER_SECOND,
    burst: e.API_RATE_LIMIT_BURST ?? Math.max(1, Math.ceil(e.API_RATE_LIMIT_PER_SECOND)),
  };
}

// One per process: the fast path's copy of this module and Next's bundled copy count the same keys.
const buckets = processSingleton("rateLimits", () => new Map<string, number>());

function admitInMemory(apiKeyId: string, now: number, limit: RateLimit): Admission {
  const result = admit(buckets.get(apiKeyId), now, limit);
  if (result.allowed) {
    // A bucket that is full again is the same as none: forget those when the map grows.
    if (buckets.size >= 10_000) for (const [id, tat] of buckets) if (tat <= now) buckets.delete(id);
    buckets.set(apiKeyId, result.tat);
  }
  return result;
}

export interface RateLimited {
  error: ApiError;
  retryAfterSeconds: number;
}

/** Counts a request of the key; returns what to answer when it is over the limit, null when it may go on. */
export async function checkRateLimit(apiKeyId: string): Promise<RateLimited | null> {
  const limit = configuredRateLimit();
  if (!limit) return null;
  const result = env().REDIS_URL ? await admitInRedis(apiKeyId, limit) : admitInMemory(apiKeyId, Date.now(), limit);
  if (result.allowed) return null;
  metrics().apiRateLimited.inc();
  const retryAfterSeconds = Math.max(1, Math.ceil(result.waitMs / 1000));
  return {
    retryAfterSeconds,
    error: new ApiError("TooManyRequests", {
      detail: `at most ${limit.perSecond} requests a second per API key (${limit.burst} at once); retry after ${retryAfterSeconds} s`,
    }),
  };
}
