import { ApiError } from "../api/api-error";
import { db } from "../db/client";

// Sign-in throttling, per email and per client address, shared by every server through the database.
// The first FREE_FAILURES failures cost nothing; each one after makes the next attempt wait twice as long as the last
// (1 s, 2 s, 4 s, … up to MAX_DELAY); LOCK_AFTER failures lock the key for LOCK_SECONDS. Failures older than
// WINDOW_SECONDS are forgotten. A successful sign-in clears the email's count (not the address's: one address
// guessing at many emails stays slowed down). An address is given more room than an email, because an office
// behind one NAT address shares it.
export interface ThrottlePolicy {
  FREE_FAILURES: number;
  MAX_DELAY_SECONDS: number;
  LOCK_AFTER: number;
  LOCK_SECONDS: number;
  WINDOW_SECONDS: number;
}

export const throttlePolicy: ThrottlePolicy = {
  FREE_FAILURES: 3,
  MAX_DELAY_SECONDS: 30,
  LOCK_AFTER: 10,
  LOCK_SECONDS: 15 * 60,
  WINDOW_SECONDS: 15 * 60,
};

export const addressThrottlePolicy: ThrottlePolicy = { ...throttlePolicy, FREE_FAILURES: 10, LOCK_AFTER: 50 };

const policyOf = (key: string) => (key.startsWith("ip:") ? addressThrottlePolicy : throttlePolicy);

export function throttleKeys(email: string, ip: string): string[] {
  const keys = [`email:${email.trim().toLowerCase()}`];
  if (ip) keys.push(`ip:${ip}`);
  return keys;
}

/** When the next attempt may be checked after `failures` failures in a row, or null when at once. */
export function blockAfter(failures: number, at: Date, policy: ThrottlePolicy = throttlePolicy): Date | null {
  if (failures >= policy.LOCK_AFTER) return new Date(at.getTime() + policy.LOCK_SECONDS * 1000);
  if (failures <= policy.FREE_FAILURES) return null;
  const delay = Math.min(2 ** (failures - policy.FREE_FAILURES - 1), policy.MAX_DELAY_SECONDS);
  return new Date(at.getTime() + delay * 1000);
}

/** The time until which any of the keys is blocked, or null when all may try now. */
export async function blockedUntil(keys: string[], now = new Date()): Promise<Date | null> {
  const rows = await db().signInThrottle.findMany({ where: { key: { in: keys } } });
  let until: Date | null = null;
  for (const row of rows) {
    if (row.blockedUntil && row.blockedUntil > now && (!until || row.blockedUntil > until)) until = row.blockedUntil;
  }
  return until;
}

/** Counts a failure against every key; answers whether one of them is now locked (not just delayed). */
export async function recordSignInFailure(keys: string[], now = new Date()): Promise<{ locked: boolean }> {
  let locked = false;
  for (const key of keys) {
    const policy = policyOf(key);
    const row = await db().signInThrottle.findUnique({ where: { key } });
    const fresh = !row || now.getTime() - row.lastFailureAt.getTime() > policy.WINDOW_SECONDS * 1000;
    const failures = fresh ? 1 : row.failures + 1;
    const until = blockAfter(failures, now, policy);
    if (failures >= policy.LOCK_AFTER) locked = true;
    await db().signInThrottle.upsert({
      where: { key },
      create: { key, failures, firstFailureAt: now, lastFailureAt: now, blockedUntil: until },
      update: {
        failures,
        lastFailureAt: now,
        blockedUntil: until,
        ...(fresh ? { firstFailureAt: now } : {}),
      },
    });
  }
  return { locked };
}

export async function clearSignInFailures(email: string): Promise<void> {
  await db().signInThrottle.deleteMany({ where: { key: `email:${email.trim().toLowerCase()}` } });
}

/**
 * Refuses (TooManyRequests) a guess a signed-in user types, a current password or a two-factor code, while earlier
 * wrong guesses block its email or address; the refusal says how long to wait.
 */
export async function refuseWhileThrottled(keys: string[], guesses: string, field?: string): Promise<void> {
  const blocked = await blockedUntil(keys);
  if (!blocked) return;
  const seconds = Math.max(1, Math.ceil((blocked.getTime() - Date.now()) / 1000));
  const wait = `${seconds} second${seconds === 1 ? "" : "s"}`;
  throw new ApiError("TooManyRequests", { detail: `too many ${guesses}: try again in ${wait}`, field });
}
