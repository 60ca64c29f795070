import { randomBytes } from "node:crypto";
import { generate } from "otplib";
import { describe, expect, it } from "vitest";
import {
  checkTotp,
  groupedSecret,
  hashRecoveryCode,
  newRecoveryCodes,
  newTotpSecret,
  readCode,
  timeStepAt,
  totpUri,
} from "../../lib/auth/two-factor-codes";
import { openLegacySecret } from "../../lib/auth/two-factor-secret";
import { legacyTotpValue } from "../helpers/legacy-secrets";

const secret = newTotpSecret();
const now = new Date("2026-11-25T16:10:10Z");
const codeAt = (offsetSteps: number, at = now) =>
  generate({ secret, epoch: Math.floor(at.getTime() / 1000) + offsetSteps * 30 });

describe("TOTP codes", () => {
  it("accept the current code and the ones a step either side, and say which step they were", async () => {
    const step = timeStepAt(now);
    for (const offset of [-1, 0, 1]) {
      expect(await checkTotp({ secret, code: await codeAt(offset), now, lastTimeStep: null }), `offset ${offset}`).toBe(
        step + offset,
      );
    }
  });

  it("refuse codes two steps away, wrong codes and anything but six digits", async () => {
    expect(await checkTotp({ secret, code: await codeAt(-2), now, lastTimeStep: null })).toBeNull();
    expect(await checkTotp({ secret, code: await codeAt(2), now, lastTimeStep: null })).toBeNull();
    const right = await codeAt(0);
    const wrong = String((Number(right) + 1) % 1_000_000).padStart(6, "0");
    expect(await checkTotp({ secret, code: wrong, now, lastTimeStep: null })).toBeNull();
    for (const code of ["", "12345", "1234567", "abcdef", " 123456"]) {
      expect(await checkTotp({ secret, code, now, lastTimeStep: null }), code).toBeNull();
    }
  });

  it("refuse a code whose step was accepted already, and older ones (replay)", async () => {
    const step = timeStepAt(now);
    const code = await codeAt(0);
    expect(await checkTotp({ secret, code, now, lastTimeStep: step - 1 })).toBe(step);
    expect(await checkTotp({ secret, code, now, lastTimeStep: step })).toBeNull();
    expect(await checkTotp({ secret, code: await codeAt(-1), now, lastTimeStep: step })).toBeNull();
    // The next step's code is still good after this one.
    expect(await checkTotp({ secret, code: await codeAt(1), now, lastTimeStep: step })).toBe(step + 1);
    // A remembered step from the future (a clock set back) accepts nothing rather than failing.
    expect(await checkTotp({ secret, code, now, lastTimeStep: step + 5 })).toBeNull();
  });

  it("make keys an authenticator app takes: 160-bit base32, in an otpauth URI", () => {
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(newTotpSecret()).not.toBe(secret);
    expect(groupedSecret("ABCDEFGHIJ")).toBe("ABCD EFGH IJ");
    const uri = new URL(totpUri({ secret, label: "ana@example.com", issuer: "Parley" }));
    expect(uri.protocol).toBe("otpauth:");
    expect(uri.searchParams.get("secret")).toBe(secret);
    expect(uri.searchParams.get("issuer")).toBe("Parley");
  });
});

describe("typed codes", () => {
  it("read six digits as a TOTP code and twelve recovery characters as a recovery code, ignoring spaces and dashes", () => {
    expect(readCode(" 123 456 ")).toEqual({ kind: "totp", code: "123456" });
    expect(readCode("ABCD-EFGH-2345")).toEqual({ kind: "recovery", code: "abcdefgh2345" });
    expect(readCode("12345")).toBeNull();
    expect(readCode("abcd-efgh-1890")).toBeNull();
    expect(readCode("")).toBeNull();
  });
});

describe("recovery codes", () => {
  const key = randomBytes(32);

  it("are ten distinct codes of twelve characters in three groups", () => {
    const codes = newRecoveryCodes();
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    for (const code of codes) {
      expect(code).toMatch(/^[a-z2-7]{4}-[a-z2-7]{4}-[a-z2-7]{4}$/);
      expect(readCode(code)?.kind).toBe("recovery");
    }
  });

  it("are stored as a keyed hash that does not depend on case or dashes, and differs under another key", () => {
    const [code] = newRecoveryCodes(1);
    const hash = hashRecoveryCode(code!, key);
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(hash).not.toContain(code!.replace(/-/g, ""));
    expect(hashRecoveryCode(code!.toUpperCase().replace(/-/g, " "), key)).toBe(hash);
    expect(hashRecoveryCode(code!, randomBytes(32))).not.toBe(hash);
    expect(hashRecoveryCode(newRecoveryCodes(1)[0]!, key)).not.toBe(hash);
  });
});

describe("stored TOTP keys of the legacy form (v1, before PARLEY_SECRET_KEY)", () => {
  const key = randomBytes(32);

  it("are read back only with the same key and for the same user", () => {
    const stored = legacyTotpValue(secret, "user-1", key);
    expect(stored).not.toContain(secret);
    expect(stored.startsWith("v1.")).toBe(true);
    expect(openLegacySecret(stored, "user-1", key)).toBe(secret);
    expect(openLegacySecret(stored, "user-2", key)).toBeNull();
    expect(openLegacySecret(stored, "user-1", randomBytes(32))).toBeNull();
    const [v, iv, tag, data] = stored.split(".");
    const flipped = Buffer.from(data!, "base64url");
    flipped[0]! ^= 1;
    expect(openLegacySecret([v, iv, tag, flipped.toString("base64url")].join("."), "user-1", key)).toBeNull();
    expect(openLegacySecret("garbage", "user-1", key)).toBeNull();
  });
});
