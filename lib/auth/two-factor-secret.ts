import { createDecipheriv, hkdfSync } from "node:crypto";
import { sessionSecret } from "../env";
import { needsReseal, openSecret, sealSecret } from "../secrets/secret-box";

// TOTP keys are stored sealed (lib/secrets/secret-box.ts, under PARLEY_SECRET_KEY), so a copy of the database alone
// cannot produce codes. The user's id is bound in, so a row copied to another user does not open.
//
// Before PARLEY_SECRET_KEY, they were encrypted ("v1") under a key derived from the portal session secret: those
// still open here, and are sealed again under PARLEY_SECRET_KEY the first time they are read (sign-in, enrolment's
// confirmation) or by `parley secrets reseal`. Recovery codes keep their HMAC key derived from the session secret:
// they are stored hashed, and cannot be hashed again without the codes themselves.

const LEGACY_VERSION = "v1";

function derive(info: string): Buffer {
  return Buffer.from(hkdfSync("sha256", sessionSecret(), "parley two-factor", info, 32));
}

/** The legacy ("v1") encryption key of stored TOTP keys. */
export function legacyTotpEncryptionKey(): Buffer {
  return derive("totp secret encryption v1");
}

/** The HMAC key of stored recovery codes. */
export function recoveryCodeKey(): Buffer {
  return derive("recovery code hmac v1");
}

const context = (userId: string) => `totp:${userId}`;

/** A TOTP key as stored: sealed under PARLEY_SECRET_KEY, bound to its user. */
export function sealTotpSecret(plain: string, userId: string): string {
  return sealSecret(plain, context(userId));
}

/**
 * The plain key of a stored value, and whether it should be stored again sealed under the current key (a legacy
 * "v1" value, or one sealed under a previous key); null when it cannot be read (another key, another user, damaged).
 */
export function openTotpSecret(stored: string, userId: string): { plain: string; reseal: boolean } | null {
  if (stored.startsWith(`${LEGACY_VERSION}.`)) {
    const plain = openLegacySecret(stored, userId, legacyTotpEncryptionKey());
    return plain === null ? null : { plain, reseal: true };
  }
  const plain = openSecret(stored, context(userId));
  return plain === null ? null : { plain, reseal: needsReseal(stored) };
}

/** "v1.<iv>.<tag>.<ciphertext>" (each part base64url, the user's id as additional data) → the plain key, or null. */
export function openLegacySecret(stored: string, userId: string, key: Buffer): string | null {
  const [version, iv, tag, data] = stored.split(".");
  if (version !== LEGACY_VERSION || !iv || !tag || data === undefined) return null;
  try {
    const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64url"));
    decipher.setAAD(Buffer.from(userId));
    decipher.setAuthTag(Buffer.from(tag, "base64url"));
    return Buffer.concat([decipher.update(Buffer.from(data, "base64url")), decipher.final()]).toString("utf8");
  } catch {
    return null;
  }
}
