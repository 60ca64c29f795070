import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { bootstrapEnv, env, reloadEnv, secretKeys } from "../../lib/env";

// PARLEY_SECRET_KEY: validated with a message saying how to make one; generated once into the data directory when
// unset; earlier keys in PARLEY_SECRET_KEY_PREVIOUS.

const saved = { ...process.env };
afterEach(() => {
  for (const name of ["PARLEY_SECRET_KEY", "PARLEY_SECRET_KEY_PREVIOUS", "PARLEY_DATA_DIR", "NEXTAUTH_SECRET"]) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
  reloadEnv();
});

const key = () => randomBytes(32).toString("base64");

describe("PARLEY_SECRET_KEY", () => {
  it("is refused unless it is 32 bytes of base64, saying how to make one", () => {
    for (const bad of [
      "short",
      randomBytes(16).toString("base64"),
      randomBytes(33).toString("base64"),
      "!".repeat(44),
    ]) {
      process.env.PARLEY_SECRET_KEY = bad;
      reloadEnv();
      expect(() => env()).toThrow(/PARLEY_SECRET_KEY must be 32 random bytes in base64.*openssl rand -base64 32/);
    }
  });

  it("takes previous keys, comma-separated, each checked", () => {
    const [current, a, b] = [key(), key(), randomBytes(32).toString("base64url")];
    process.env.PARLEY_SECRET_KEY = current;
    process.env.PARLEY_SECRET_KEY_PREVIOUS = `${a}, ${b}`;
    reloadEnv();
    const keys = secretKeys();
    expect(keys.current.equals(Buffer.from(current, "base64"))).toBe(true);
    expect(keys.previous.map((k) => k.toString("base64url"))).toEqual([
      Buffer.from(a, "base64").toString("base64url"),
      b,
    ]);
    process.env.PARLEY_SECRET_KEY_PREVIOUS = `${a},nope`;
    reloadEnv();
    expect(() => env()).toThrow(/PARLEY_SECRET_KEY_PREVIOUS must be 32 random bytes/);
  });

  it("when unset, is generated once into the data directory (mode 0600) and read from there after", () => {
    const dir = mkdtempSync(join(tmpdir(), "parley-key-"));
    delete process.env.PARLEY_SECRET_KEY;
    process.env.PARLEY_DATA_DIR = dir;
    process.env.NEXTAUTH_SECRET = "a-session-secret-of-enough-length";
    bootstrapEnv();
    const file = join(dir, "secret-key");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const stored = readFileSync(file, "utf8").trim();
    expect(Buffer.from(stored, "base64")).toHaveLength(32);
    expect(secretKeys().current.equals(Buffer.from(stored, "base64"))).toBe(true);
    delete process.env.PARLEY_SECRET_KEY;
    bootstrapEnv();
    expect(process.env.PARLEY_SECRET_KEY).toBe(stored);
  });
});
