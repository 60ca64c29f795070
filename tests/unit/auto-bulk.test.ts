import { describe, expect, it } from "vitest";
import {
  batchTotals,
  bucketOf,
  overThreshold,
  sameTextHash,
  windowStart,
  WINDOW_ROWS_NEEDED,
  type SameTextEntry,
} from "../../lib/throttle/auto-bulk";

const t0 = Date.UTC(2026, 10, 22, 12, 0, 0);

describe("automatic bulk: the window", () => {
  it("counts the 600 seconds up to and including the send's own", () => {
    expect(bucketOf(t0)).toBe(t0 / 1000);
    expect(bucketOf(t0 + 999)).toBe(t0 / 1000);
    expect(windowStart(t0 + 500)).toBe(t0 / 1000 - 599);
  });

  it("never counts traffic older than 10 minutes", () => {
    // Any send at `at`: the oldest bucket it counts began less than 600 s before it.
    for (const offset of [0, 1, 499, 998, 999]) {
      const at = t0 + offset;
      expect(at - windowStart(at) * 1000).toBeLessThan(600_000);
      // 600 s (and a millisecond more) before: outside.
      expect(bucketOf(at - 600_000)).toBeLessThan(windowStart(at));
      expect(bucketOf(at - 600_001)).toBeLessThan(windowStart(at));
    }
  });

  it("always counts traffic of the last 599 seconds", () => {
    for (const offset of [0, 1, 499, 998, 999]) {
      const at = t0 + offset;
      expect(bucketOf(at - 599_000)).toBeGreaterThanOrEqual(windowStart(at));
      expect(bucketOf(at)).toBeGreaterThanOrEqual(windowStart(at));
    }
  });

  it("is over the threshold from the 21st destination", () => {
    expect(overThreshold(20)).toBe(false);
    expect(overThreshold(21)).toBe(true);
    // Each bucket holds at least one destination: 21 buckets in the window are over the threshold.
    expect(WINDOW_ROWS_NEEDED).toBe(21);
  });

  it("hashes body and media together, apart from each other", () => {
    expect(sameTextHash("Sale", [])).toBe(sameTextHash("Sale", []));
    expect(sameTextHash("Sale", [])).not.toBe(sameTextHash("Sale ", []));
    expect(sameTextHash("Sale", ["https://x/a.jpg"])).not.toBe(sameTextHash("Sale", []));
    expect(sameTextHash("a\0b", [])).not.toBe(sameTextHash("a", ["b"]));
  });
});

describe("automatic bulk: totals of one batch", () => {
  const entry = (accountId: string, textHash: string, destinations: number, at = t0): SameTextEntry => ({
    accountId,
    textHash,
    destinations,
    at,
  });
  const s = t0 / 1000;

  it("gives each send the count before it in the batch and its own", () => {
    const entries = [entry("a", "x", 5), entry("a", "x", 1), entry("a", "x", 15)];
    // 14 before the batch in other seconds; the batch's 21 landed on 0 already in this second.
    const totals = batchTotals(entries, new Map([[`a x ${s}`, 21]]), new Map([["a x", 14]]));
    expect(totals).toEqual([19, 20, 35]);
  });

  it("counts accounts and texts apart", () => {
    const entries = [entry("a", "x", 20), entry("b", "x", 1), entry("a", "y", 1), entry("a", "x", 1)];
    const after = new Map([
      [`a x ${s}`, 21],
      [`b x ${s}`, 1],
      [`a y ${s}`, 1],
    ]);
    expect(batchTotals(entries, after, new Map())).toEqual([20, 1, 1, 21]);
  });

  it("adds every second the batch touched, including other servers' sends in them", () => {
    const entries = [entry("a", "x", 1, t0 + 999), entry("a", "x", 1, t0 + 1000)];
    // Another server added 3 to the first second meanwhile.
    const after = new Map([
      [`a x ${s}`, 4],
      [`a x ${s + 1}`, 1],
    ]);
    expect(batchTotals(entries, after, new Map([["a x", 2]]))).toEqual([6, 7]);
  });
});
