import { createHmac, randomBytes } from "node:crypto";
import { generateSecret, generateURI, verify } from "otplib";

// The pure rules of two-factor sign-in: TOTP codes (RFC 6238: SHA-1, 6 digits, 30-second steps, what every
// authenticator app shows) and recovery codes. Nothing here reads the database or the clock by itself.

export const TOTP_PERIOD_SECONDS = 30;
/** A code of the step before or after the current one is still taken: phone clocks drift, people type slowly. */
export const TOTP_WINDOW_STEPS = 1;
export const RECOVERY_CODE_COUNT = 10;

/** A new TOTP key: 20 random bytes (RFC 4226's recommended length), as the base32 text authenticator apps take. */
export function newTotpSecret(): string {
  return generateSecret({ length: 20 });
}

/** The key as a person types it into an app: groups of four. */
export function groupedSecret(secret: string): string {
  return secret.replace(/(.{4})(?=.)/g, "$1 ");
}

/** The otpauth:// URI an authenticator app reads from the QR code. */
export function totpUri(input: { secret: string; label: string; issuer: string }): string {
  return generateURI({ secret: input.secret, label: input.label, issuer: input.issuer });
}

export type CodeKind = "totp" | "recovery";

/**
 * What the user typed, without spaces and dashes, and which kind of code it can be: six digits are a TOTP code,
 * twelve letters and digits of the recovery alphabet a recovery code; anything else is no code at all.
 */
export function readCode(text: string): { kind: CodeKind; code: string } | null {
  const code = text.replace(/[\s-]/g, "").toLowerCase();
  if (/^\d{6}$/.test(code)) return { kind: "totp", code };
  if (/^[a-z2-7]{12}$/.test(code)) return { kind: "recovery", code };
  return null;
}

/** The time step a moment falls in. */
export function timeStepAt(now: Date): number {
  return Math.floor(now.getTime() / 1000 / TOTP_PERIOD_SECONDS);
}

/**
 * Checks a six-digit code against the key at `now`, one step either side. A code of a step at or before
 * `lastTimeStep` (the last one accepted) is refused: each code signs in once, and an older one that was never
 * used cannot be replayed after a newer one either. Answers the step to remember, or null.
 */
export async function checkTotp(input: {
  secret: string;
  code: string;
  now: Date;
  lastTimeStep: number | null;
}): Promise<number | null> {
  if (!/^\d{6}$/.test(input.code)) return null;
  const current = timeStepAt(input.now);
  // otplib refuses (throws on) a floor beyond the window; such a floor (a clock set back) accepts nothing.
  if (input.lastTimeStep !== null && input.lastTimeStep >= current + TOTP_WINDOW_STEPS) return null;
  const result = await verify({
    secret: input.secret,
    token: input.code,
    epoch: Math.floor(input.now.getTime() / 1000),
    period: TOTP_PERIOD_SECONDS,
    epochTolerance: TOTP_WINDOW_STEPS * TOTP_PERIOD_SECONDS,
    ...(input.lastTimeStep !== null && input.lastTimeStep >= 0 ? { afterTimeStep: input.lastTimeStep } : {}),
  });
  return result.valid && "timeStep" in result ? result.timeStep : null;
}

// Lower-case base32: no 0/1/8/9, so no o/0 or l/1 confusion on paper.
const RECOVERY_ALPHABET = "abcdefghijklmnopqrstuvwxyz234567";

/** Fresh recovery codes as shown to the user, "xxxx-xxxx-xxxx": 60 random bits each. */
export function newRecoveryCodes(count = RECOVERY_CODE_COUNT): string[] {
  return Array.from({ length: count }, () => {
    const bytes = randomBytes(12);
    const chars = [...bytes].map((b) => RECOVERY_ALPHABET[b & 31]).join("");
    return `${chars.slice(0, 4)}-${chars.slice(4, 8)}-${chars.slice(8, 12)}`;
  });
}

/**
 * The stored form of a recovery code: an HMAC under a server-side key rather than a bare hash, so a copy of the
 * database alone is not enough to search the 60-bit space offline. Spacing, dashes and case do not matter.
 */
export function hashRecoveryCode(code: string, key: Buffer): string {
  const normal = code.replace(/[\s-]/g, "").toLowerCase();
  return createHmac("sha256", key).update(normal).digest("hex");
}
