import { describe, expect, it } from "vitest";
import { SameTextWindow } from "../../lib/db/same-text-window.mjs";
import { sameTextHash } from "../../lib/throttle/auto-bulk";

// SQLite's automatic-bulk window in the send writer's thread: destinations per account, text and second.
const a = "acct-a";
const b = "acct-b";
const hello = sameTextHash("Hello", []);
const bye = sameTextHash("Bye", []);
const s = 1_795_000_020; // a second since the epoch, in 2026, that begins a minute

describe("the same-text window", () => {
  it("sums a text's destinations from a second on, apart per account and per text", () => {
    const w = new SameTextWindow();
    w.add(a, hello, s, 3);
    w.add(a, hello, s + 5, 4);
    w.add(a, hello, s + 5, 1);
    w.add(a, bye, s + 5, 7);
    w.add(b, hello, s + 9, 2);
    expect(w.total(a, hello, s)).toBe(8);
    expect(w.total(a, hello, s + 1)).toBe(5);
    expect(w.total(a, hello, s + 6)).toBe(0);
    expect(w.total(a, bye, s)).toBe(7);
    expect(w.total(b, hello, s)).toBe(2);
    expect(w.total(b, bye, s)).toBe(0);
    expect(w.size).toBe(3);
  });

  it("keeps seconds in order whatever order they are added in", () => {
    const w = new SameTextWindow();
    w.add(a, hello, s + 10, 1);
    w.add(a, hello, s + 2, 10);
    w.add(a, hello, s + 6, 100);
    w.add(a, hello, s + 2, 1000);
    expect(w.total(a, hello, s + 2)).toBe(1111);
    expect(w.total(a, hello, s + 3)).toBe(101);
    expect(w.total(a, hello, s + 7)).toBe(1);
  });

  it("holds counts of millions of destinations in one second", () => {
    const w = new SameTextWindow();
    w.add(a, hello, s, 5_000_000);
    expect(w.total(a, hello, s)).toBe(5_000_000);
    w.add(a, hello, s, 1);
    expect(w.total(a, hello, s)).toBe(5_000_001);
    w.add(a, bye, s, 2_097_151);
    w.add(a, bye, s, 1);
    expect(w.total(a, bye, s)).toBe(2_097_152);
  });

  it("counts from the second it is asked from, whatever minute the seconds fall in", () => {
    const w = new SameTextWindow();
    w.add(a, hello, s + 59, 1);
    w.add(a, hello, s + 61, 10);
    w.add(a, hello, s + 600, 100);
    expect(w.total(a, hello, s + 59)).toBe(111);
    expect(w.total(a, hello, s + 60)).toBe(110);
    expect(w.total(a, hello, s + 62)).toBe(100);
  });

  it("says more than enough once past it, without adding the rest", () => {
    const w = new SameTextWindow();
    for (let i = 0; i < 300; i++) w.add(a, hello, s + i, 1);
    expect(w.total(a, hello, s)).toBe(300);
    const enough = w.total(a, hello, s, 20);
    expect(enough).toBeGreaterThan(20);
    expect(enough).toBeLessThan(300);
  });

  it("forgets the minutes that end by a prune", () => {
    const w = new SameTextWindow();
    w.add(a, hello, s, 1);
    w.add(a, bye, s + 60, 2);
    w.add(a, bye, s + 180, 4);
    w.add(b, hello, s + 120, 8);
    w.prune(s + 120);
    expect(w.total(a, hello, 0)).toBe(0);
    expect(w.total(a, bye, 0)).toBe(4);
    expect(w.total(b, hello, 0)).toBe(8);
    expect(w.size).toBe(2);
    w.prune(s + 240);
    expect(w.size).toBe(0);
    // Counting starts again from nothing.
    w.add(a, hello, s + 300, 1);
    expect(w.total(a, hello, s)).toBe(1);
  });

  it("forgets on time a text counted in a second far ahead of the others (another host's clock)", () => {
    const w = new SameTextWindow();
    w.add(a, hello, s + 86_400, 1);
    w.add(a, bye, s, 5);
    w.prune(s + 60);
    expect(w.total(a, bye, 0)).toBe(0);
    expect(w.total(a, hello, 0)).toBe(1);
    expect(w.size).toBe(1);
  });

  it("tells texts apart by the first 72 bits of their hash", () => {
    // The key is the hash's first 12 characters: 10,000 texts, 10,000 keys.
    const w = new SameTextWindow();
    for (let i = 0; i < 10_000; i++) w.add(a, sameTextHash(`text ${i}`, []), s, 1);
    expect(w.size).toBe(10_000);
    expect(w.total(a, sameTextHash("text 42", []), s)).toBe(1);
  });
});
