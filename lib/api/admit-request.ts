// The arithmetic of the per-key rate limit (rate-limit.ts), alone and pure: counted in memory there and in Redis by
// rate-limit-redis.ts, which both use it.

export interface RateLimit {
  perSecond: number;
  burst: number;
}

export type Admission = { allowed: true; tat: number } | { allowed: false; waitMs: number };

/**
 * The generic cell rate algorithm (a token bucket kept as one time): `tat` is when the key's bucket would be full
 * again. A request is let in while that is no further ahead than the burst allows, and moves it on by one interval.
 */
export function admit(tat: number | undefined, now: number, limit: RateLimit): Admission {
  const interval = 1000 / limit.perSecond;
  const tolerance = (limit.burst - 1) * interval;
  const start = Math.max(tat ?? now, now);
  const waitMs = start - tolerance - now;
  if (waitMs > 0) return { allowed: false, waitMs };
  return { allowed: true, tat: start + interval };
}
