import { createHash, randomBytes } from "node:crypto";

// The decision: keys are `pk_` + 32 base62 characters (recognisable by secret scanners), stored only as a
// SHA-256 hash, listed by prefix and last four characters.
const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
export const API_KEY_PATTERN = /^pk_[0-9A-Za-z]{32}$/;

export function generateApiKey(): string {
  let out = "pk_";
  while (out.length < 35) {
    for (const byte of randomBytes(48)) {
      // 248 = 4 × 62: rejecting larger bytes keeps every character equally likely.
      if (byte < 248 && out.length < 35) out += BASE62[byte % 62];
    }
  }
  return out;
}

export function hashApiKey(key: string): string {
  return createHash("sha256").update(key).digest("hex");
}

export function apiKeyDisplay(key: string): { prefix: string; last4: string } {
  return { prefix: key.slice(0, 7), last4: key.slice(-4) };
}
