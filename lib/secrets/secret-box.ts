import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";
import { secretKeys } from "../env";

// Secrets Parley must read back (TOTP keys, webhook signing secrets, soon carrier credentials) are stored sealed
// under one key, PARLEY_SECRET_KEY, so a copy of the database alone gives none of them away (docs/SECURITY.md).
// AES-256-GCM with a random 12-byte IV; the context ("totp:<userId>", "webhook:<id>") is bound in as additional
// data, so a value copied to another row or another kind of secret does not open. The key's id travels with the
// value, so that after a rotation the earlier keys (PARLEY_SECRET_KEY_PREVIOUS) still open what they sealed until
// `parley secrets reseal` has moved it to the current key.

const VERSION = "v2";

export interface SecretKeys {
  current: Buffer;
  previous: Buffer[];
}

/** The first 8 hex characters of the key's SHA-256: names the key in a sealed value without giving it away. */
export function keyId(key: Buffer): string {
  return createHash("sha256").update(key).digest("hex").slice(0, 8);
}

/** "v2.<keyId>.<iv>.<tag>.<ciphertext>", the last three base64url. */
export function sealSecret(plain: string, context: string, keys: SecretKeys = secretKeys()): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", keys.current, iv);
  cipher.setAAD(Buffer.from(context, "utf8"));
  const data = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
  return [VERSION, keyId(keys.current), ...[iv, cipher.getAuthTag(), data].map((p) => p.toString("base64url"))].join(
    ".",
  );
}

function parse(stored: string) {
  const parts = stored.split(".");
  if (parts.length !== 5 || parts[0] !== VERSION) return null;
  const [, id, iv, tag, data] = parts as [string, string, string, string, string];
  return { id, iv, tag, data };
}

/** The plain secret, or null when it cannot be opened (no key of that id, another context, a damaged value). */
export function openSecret(stored: string, context: string, keys: SecretKeys = secretKeys()): string | null {
  const sealed = parse(stored);
  if (!sealed) return null;
  const key = [keys.current, ...keys.previous].find((k) => keyId(k) === sealed.id);
  if (!key) return null;
  try {
    const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(sealed.iv, "base64url"), {
      authTagLength: 16, // a shortened tag is a damaged value, not a weaker check
    });
    decipher.setAAD(Buffer.from(context, "utf8"));
    decipher.setAuthTag(Buffer.from(sealed.tag, "base64url"));
    return Buffer.concat([decipher.update(Buffer.from(sealed.data, "base64url")), decipher.final()]).toString("utf8");
  } catch {
    return null;
  }
}

/** Whether a stored value should be sealed again: it is in a legacy form, or sealed under another key than the current. */
export function needsReseal(stored: string, keys: SecretKeys = secretKeys()): boolean {
  const sealed = parse(stored);
  return !sealed || sealed.id !== keyId(keys.current);
}

/** Whether a stored value is in the sealed form at all (a legacy value is not). */
export function isSealed(stored: string): boolean {
  return parse(stored) !== null;
}
