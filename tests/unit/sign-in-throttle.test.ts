import { describe, expect, it } from "vitest";
import { addressThrottlePolicy, blockAfter, throttleKeys, throttlePolicy } from "../../lib/auth/sign-in-throttle";

describe("sign-in throttle policy", () => {
  const at = new Date("2026-01-01T00:00:00Z");
  const wait = (failures: number, policy = throttlePolicy) => {
    const until = blockAfter(failures, at, policy);
    return until === null ? 0 : (until.getTime() - at.getTime()) / 1000;
  };

  it("lets the first three failures of an email pass, then doubles the wait up to 30 s, then locks for 15 minutes", () => {
    expect([1, 2, 3].map((n) => wait(n))).toEqual([0, 0, 0]);
    expect([4, 5, 6, 7, 8, 9].map((n) => wait(n))).toEqual([1, 2, 4, 8, 16, 30]);
    expect(wait(10)).toBe(15 * 60);
    expect(wait(25)).toBe(15 * 60);
  });

  it("gives an address (perhaps an office behind one NAT) more room than an email", () => {
    expect(wait(10, addressThrottlePolicy)).toBe(0);
    expect(wait(11, addressThrottlePolicy)).toBe(1);
    expect(wait(49, addressThrottlePolicy)).toBe(30);
    expect(wait(50, addressThrottlePolicy)).toBe(15 * 60);
  });

  it("keys an attempt by its folded email and, when known, its address", () => {
    expect(throttleKeys(" Ops@Example.COM ", "10.0.0.7")).toEqual(["email:ops@example.com", "ip:10.0.0.7"]);
    expect(throttleKeys("ops@example.com", "")).toEqual(["email:ops@example.com"]);
  });
});
