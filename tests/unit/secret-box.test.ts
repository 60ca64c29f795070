import { createHash, randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { isSealed, keyId, needsReseal, openSecret, sealSecret } from "../../lib/secrets/secret-box";

// The one sealing of secrets stored in the database: AES-256-GCM under PARLEY_SECRET_KEY, the context bound in,
// the key named by its id so that previous keys still open what they sealed.

const oldKey = randomBytes(32);
const newKey = randomBytes(32);
const keys = { current: newKey, previous: [] };
const plain = "JBSWY3DPEHPK3PXP-secret";

describe("sealSecret / openSecret", () => {
  it("seals as v2.<keyId>.<iv>.<tag>.<ciphertext> and opens it back", () => {
    const stored = sealSecret(plain, "totp:user-1", keys);
    const [version, id, iv, tag, data, ...rest] = stored.split(".");
    expect(version).toBe("v2");
    expect(id).toBe(createHash("sha256").update(newKey).digest("hex").slice(0, 8));
    expect(id).toBe(keyId(newKey));
    expect(Buffer.from(iv!, "base64url")).toHaveLength(12);
    expect(Buffer.from(tag!, "base64url")).toHaveLength(16);
    expect(Buffer.from(data!, "base64url")).toHaveLength(Buffer.byteLength(plain));
    expect(rest).toEqual([]);
    expect(stored).not.toContain(plain);
    expect(isSealed(stored)).toBe(true);
    expect(openSecret(stored, "totp:user-1", keys)).toBe(plain);
    // A random IV each time.
    expect(sealSecret(plain, "totp:user-1", keys)).not.toBe(stored);
    expect(openSecret(sealSecret("", "webhook:1", keys), "webhook:1", keys)).toBe("");
  });

  it("does not open for another context", () => {
    const stored = sealSecret(plain, "totp:user-1", keys);
    expect(openSecret(stored, "totp:user-2", keys)).toBeNull();
    expect(openSecret(stored, "webhook:user-1", keys)).toBeNull();
  });

  it("does not open with another key, even one given the sealing key's id", () => {
    const stored = sealSecret(plain, "c", keys);
    expect(openSecret(stored, "c", { current: oldKey, previous: [] })).toBeNull();
    const forged = stored.replace(`.${keyId(newKey)}.`, `.${keyId(oldKey)}.`);
    expect(openSecret(forged, "c", { current: oldKey, previous: [] })).toBeNull();
  });

  it("opens with a previous key, and such a value needs resealing", () => {
    const stored = sealSecret(plain, "c", { current: oldKey, previous: [] });
    expect(needsReseal(stored, { current: oldKey, previous: [] })).toBe(false);
    const rotated = { current: newKey, previous: [randomBytes(32), oldKey] };
    expect(openSecret(stored, "c", rotated)).toBe(plain);
    expect(needsReseal(stored, rotated)).toBe(true);
    const resealed = sealSecret(openSecret(stored, "c", rotated)!, "c", rotated);
    expect(needsReseal(resealed, rotated)).toBe(false);
    expect(openSecret(resealed, "c", { current: newKey, previous: [] })).toBe(plain);
    // Once the previous key is dropped, what it sealed no longer opens.
    expect(openSecret(stored, "c", { current: newKey, previous: [] })).toBeNull();
  });

  it("answers null for a damaged value, never throws", () => {
    const stored = sealSecret(plain, "c", keys);
    const parts = stored.split(".");
    const flip = (i: number) => {
      const bytes = Buffer.from(parts[i]!, "base64url");
      bytes[0]! ^= 1;
      return parts.map((p, j) => (j === i ? bytes.toString("base64url") : p)).join(".");
    };
    for (const i of [2, 3, 4]) expect(openSecret(flip(i), "c", keys)).toBeNull();
    // A shortened tag is refused, not checked on fewer bytes.
    const short = parts.map((p, j) => (j === 3 ? Buffer.from(p, "base64url").subarray(0, 8).toString("base64url") : p));
    expect(openSecret(short.join("."), "c", keys)).toBeNull();
    for (const bad of [
      "",
      "garbage",
      "v2",
      "v2....",
      `${stored}.x`,
      stored.slice(0, -4),
      stored.replace("v2.", "v3."),
    ]) {
      expect(openSecret(bad, "c", keys)).toBeNull();
    }
  });

  it("asks for resealing legacy forms: plain text, v1, another key", () => {
    expect(needsReseal("whsec_abc", keys)).toBe(true);
    expect(needsReseal("v1.a.b.c", keys)).toBe(true);
    expect(isSealed("whsec_abc")).toBe(false);
    expect(needsReseal(sealSecret(plain, "c", keys), keys)).toBe(false);
    expect(needsReseal(sealSecret(plain, "c", { current: oldKey, previous: [] }), keys)).toBe(true);
  });
});
