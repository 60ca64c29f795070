import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";
import { sessionSecret } from "../env";

// TOTP keys are stored encrypted (AES-256-GCM), so a copy of the database alone cannot produce codes. The key is
// derived from the portal session secret (NEXTAUTH_SECRET, or the one kept in the data directory): changing that
// secret makes the stored keys unreadable, and enrolled users then need an admin's reset (docs/PORTAL.md).

const VERSION = "v1";

function derive(info: string): Buffer {
  return Buffer.from(hkdfSync("sha256", sessionSecret(), "parley two-factor", info, 32));
}

/** The encryption key of stored TOTP keys. */
export function totpEncryptionKey(): Buffer {
  return derive("totp secret encryption v1");
}

/** The HMAC key of stored recovery codes. */
export function recoveryCodeKey(): Buffer {
  return derive("recovery code hmac v1");
}

/** "v1.<iv>.<tag>.<ciphertext>", each part base64url. The user's id is bound in, so a row copied to another user
 * does not decrypt. */
export function encryptSecret(plain: string, userId: string, key: Buffer): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  cipher.setAAD(Buffer.from(userId));
  const data = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
  return [VERSION, iv, cipher.getAuthTag(), data]
    .map((p) => (typeof p === "string" ? p : p.toString("base64url")))
    .join(".");
}

/** The plain key, or null when it cannot be read (another secret, another user, a damaged value). */
export function decryptSecret(stored: string, userId: string, key: Buffer): string | null {
  const [version, iv, tag, data] = stored.split(".");
  if (version !== VERSION || !iv || !tag || data === undefined) return null;
  try {
    const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64url"));
    decipher.setAAD(Buffer.from(userId));
    decipher.setAuthTag(Buffer.from(tag, "base64url"));
    return Buffer.concat([decipher.update(Buffer.from(data, "base64url")), decipher.final()]).toString("utf8");
  } catch {
    return null;
  }
}
