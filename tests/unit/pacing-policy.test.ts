import { describe, expect, it } from "vitest";
import {
  accountSlot,
  afterAccountSend,
  afterSend,
  insideBulkWindow,
  nextInQueue,
  numberSlot,
  type AccountPace,
  type Candidate,
  type NumberPace,
} from "../../lib/throttle/pacing-policy";

// The pacing rules with an injected clock: what leaves when, without waiting for it.
const T0 = Date.UTC(2026, 10, 22, 15, 0, 0); // 15:00 UTC = 10:00 in New York

function simulate(options: {
  numbers: { id: string; queue: number }[];
  account: AccountPace;
  bulk?: boolean;
  seconds: number;
  tickMs?: number;
}): { number: string; at: number }[] {
  const tick = options.tickMs ?? 10;
  const paces = new Map<string, NumberPace>(options.numbers.map((n) => [n.id, { nextSendAt: null, ratePerSecond: 1 }]));
  const left = new Map(options.numbers.map((n) => [n.id, n.queue]));
  let account = options.account;
  const sent: { number: string; at: number }[] = [];
  for (let now = T0; now < T0 + options.seconds * 1000; now += tick) {
    for (const { id } of options.numbers) {
      if (left.get(id)! === 0) continue;
      const at = Math.max(numberSlot(now, paces.get(id)!), accountSlot(now, account, options.bulk ?? false));
      if (at > now) continue;
      paces.set(id, afterSend(at, paces.get(id)!));
      account = afterAccountSend(at, account, options.bulk ?? false);
      left.set(id, left.get(id)! - 1);
      sent.push({ number: id, at });
    }
  }
  return sent;
}

const account = (rate: number, share = 0.5): AccountPace => ({
  nextSendAt: null,
  bulkNextSendAt: null,
  ratePerSecond: rate,
  bulkShare: share,
});

describe("pacing per number", () => {
  it("lets one segment a second leave a number, starting at once", () => {
    const sent = simulate({ numbers: [{ id: "a", queue: 5 }], account: account(10), seconds: 10 });
    expect(sent.map((s) => s.at - T0)).toEqual([0, 1000, 2000, 3000, 4000]);
  });

  it("keeps numbers independent below the account limit (10/s spaces the account's segments 100 ms apart)", () => {
    const sent = simulate({
      numbers: [
        { id: "a", queue: 3 },
        { id: "b", queue: 3 },
      ],
      account: account(10),
      seconds: 5,
    });
    expect(sent.filter((s) => s.number === "a").map((s) => s.at - T0)).toEqual([0, 1000, 2000]);
    expect(sent.filter((s) => s.number === "b").map((s) => s.at - T0)).toEqual([100, 1100, 2100]);
  });

  it("honours a number's own configured rate", () => {
    const next = afterSend(T0, { nextSendAt: null, ratePerSecond: 4 });
    expect(next.nextSendAt! - T0).toBe(250);
  });
});

describe("the account limit", () => {
  it("caps the sum over all numbers; the excess waits and nothing is dropped", () => {
    const numbers = Array.from({ length: 30 }, (_, i) => ({ id: `n${i}`, queue: 2 }));
    const sent = simulate({ numbers, account: account(10), seconds: 10 });
    expect(sent).toHaveLength(60);
    for (let start = T0; start < T0 + 6000; start += 100) {
      const inWindow = sent.filter((s) => s.at >= start && s.at < start + 1000).length;
      expect(inWindow).toBeLessThanOrEqual(10);
    }
  });

  it("gives bulk at most its share of the account limit", () => {
    const numbers = Array.from({ length: 30 }, (_, i) => ({ id: `n${i}`, queue: 5 }));
    const sent = simulate({ numbers, account: account(10, 0.5), bulk: true, seconds: 4 });
    for (let start = T0; start < T0 + 3000; start += 100) {
      expect(sent.filter((s) => s.at >= start && s.at < start + 1000).length).toBeLessThanOrEqual(5);
    }
    expect(accountSlot(T0, afterAccountSend(T0, account(10), true), true) - T0).toBe(200);
    expect(accountSlot(T0, afterAccountSend(T0, account(10), true), false) - T0).toBe(100);
  });
});

describe("the order of a number's queue", () => {
  const c = (id: string, over: Partial<Candidate>): Candidate & { id: string } => ({
    id,
    messageId: id,
    bulk: false,
    inProgress: false,
    eligibleAt: null,
    createdAt: T0,
    ...over,
  });

  it("sends ad hoc before bulk even when the bulk message is older", () => {
    const queue = [c("bulk", { bulk: true, createdAt: T0 - 5000 }), c("adhoc", { createdAt: T0 })];
    expect(nextInQueue(T0, queue, () => true)?.id).toBe("adhoc");
  });

  it("finishes a message already partly sent before anything else", () => {
    const queue = [c("adhoc", { createdAt: T0 - 5000 }), c("half", { bulk: true, inProgress: true, createdAt: T0 })];
    expect(nextInQueue(T0, queue, () => false)?.id).toBe("half");
  });

  it("passes over a message waiting for its retry time, and holds bulk outside its window", () => {
    const queue = [c("retrying", { eligibleAt: T0 + 5000, createdAt: T0 - 9000 }), c("bulk", { bulk: true })];
    expect(nextInQueue(T0, queue, () => false)).toBeNull();
    expect(nextInQueue(T0, queue, () => true)?.id).toBe("bulk");
    expect(nextInQueue(T0 + 5000, queue, () => true)?.id).toBe("retrying");
  });
});

describe("the bulk window in the destination's local time", () => {
  const window = { start: "08:00", end: "21:00" };
  it("is open at 10:00 in New York and closed at 22:00", () => {
    expect(insideBulkWindow(T0, "America/New_York", window)).toBe(true);
    expect(insideBulkWindow(T0 + 12 * 3600_000, "America/New_York", window)).toBe(false);
  });
  it("differs by zone at the same instant", () => {
    const at = Date.UTC(2026, 10, 22, 5, 0, 0); // 00:00 New York, 06:00 Berlin, 14:00 Tokyo
    expect(insideBulkWindow(at, "America/New_York", window)).toBe(false);
    expect(insideBulkWindow(at, "Europe/Berlin", window)).toBe(false);
    expect(insideBulkWindow(at, "Asia/Tokyo", window)).toBe(true);
  });
  it("may wrap past midnight", () => {
    const night = { start: "22:00", end: "06:00" };
    expect(insideBulkWindow(Date.UTC(2026, 10, 22, 23, 30), "UTC", night)).toBe(true);
    expect(insideBulkWindow(Date.UTC(2026, 10, 22, 12, 0), "UTC", night)).toBe(false);
  });
});
