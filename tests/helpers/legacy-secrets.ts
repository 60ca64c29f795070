import { createCipheriv, hkdfSync, randomBytes } from "node:crypto";

// Secrets as Parley stored them before PARLEY_SECRET_KEY, for the tests that check they are still read and resealed:
// TOTP keys encrypted ("v1") under a key derived from the portal session secret.

/** The v1 TOTP encryption key, derived from a portal session secret (NEXTAUTH_SECRET) as Parley derived it. */
export function legacyTotpKey(sessionSecret: string): Buffer {
  return Buffer.from(hkdfSync("sha256", sessionSecret, "parley two-factor", "totp secret encryption v1", 32));
}

/** "v1.<iv>.<tag>.<ciphertext>", each part base64url, the user's id as additional data. */
export function legacyTotpValue(plain: string, userId: string, key: Buffer): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  cipher.setAAD(Buffer.from(userId));
  const data = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
  return ["v1", ...[iv, cipher.getAuthTag(), data].map((p) => p.toString("base64url"))].join(".");
}
