import { describe, expect, it } from "vitest";
import { admit, type RateLimit } from "../../lib/api/admit-request";

// The per-key request limit's algorithm (GCRA), on an injected clock.
function run(limit: RateLimit, times: number[]): ("ok" | number)[] {
  let tat: number | undefined;
  return times.map((now) => {
    const result = admit(tat, now, limit);
    if (!result.allowed) return result.waitMs;
    tat = result.tat;
    return "ok";
  });
}

describe("admit", () => {
  it("lets a burst in at once, then refuses with the wait until the next request may go", () => {
    expect(run({ perSecond: 5, burst: 5 }, [0, 0, 0, 0, 0, 0, 50])).toEqual(["ok", "ok", "ok", "ok", "ok", 200, 150]);
  });

  it("lets one more in per interval after the burst, and refused requests do not count", () => {
    expect(run({ perSecond: 5, burst: 5 }, [0, 0, 0, 0, 0, 100, 199, 200, 200, 400])).toEqual([
      "ok",
      "ok",
      "ok",
      "ok",
      "ok",
      100,
      1,
      "ok",
      200,
      "ok",
    ]);
  });

  it("fills up again when the key is idle, never beyond the burst", () => {
    expect(run({ perSecond: 2, burst: 3 }, [0, 0, 0, 10_000, 10_000, 10_000, 10_000])).toEqual([
      "ok",
      "ok",
      "ok",
      "ok",
      "ok",
      "ok",
      500,
    ]);
  });

  it("takes rates under one a second, and a burst of 1 is an even pace", () => {
    expect(run({ perSecond: 0.5, burst: 1 }, [0, 1000, 2000, 3999, 4000])).toEqual(["ok", 1000, "ok", 1, "ok"]);
  });
});
