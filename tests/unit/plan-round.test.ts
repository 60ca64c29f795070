import { describe, expect, it } from "vitest";
import {
  bulkDestinations,
  partOf,
  planRound,
  readyNumbers,
  roundHorizon,
  type AccountState,
  type HeldNumber,
  type QueuedMessage,
} from "../../lib/delivery/plan-round";

// A delivery round planned without a database: which part of which message leaves which number when, given the
// numbers held, their queues, their accounts' limits and bulk windows, the destinations' zones and the clock.
const T0 = Date.UTC(2026, 10, 22, 15, 0, 0); // 15:00 UTC: 10:00 in New York, 07:00 in Los Angeles
const HORIZON = T0 + 100;
const NY = "America/New_York";
const LA = "America/Los_Angeles";

function held(number: string, options: Partial<HeldNumber> & { nextSendAt?: number | null } = {}): HeldNumber {
  return {
    number,
    accountId: options.accountId ?? "acc",
    pace: options.pace ?? { nextSendAt: options.nextSendAt ?? null, ratePerSecond: 1 },
    leaseUntil: options.leaseUntil ?? T0 + 30_000,
    holding: options.holding ?? 1,
  };
}

let ids = 0;
function message(from: string, options: Partial<QueuedMessage> = {}): QueuedMessage {
  ids += 1;
  return {
    messageId: options.messageId ?? `m${String(ids).padStart(4, "0")}`,
    accountId: "acc",
    from,
    to: "12125551234",
    body: `text ${ids}`,
    media: [],
    numSegments: 1,
    encoding: "GSM7",
    bulk: false,
    inProgress: false,
    partsSubmitted: 0,
    attempts: 0,
    eligibleAt: null,
    createdAt: T0 - 60_000 + ids,
    referenceId: null,
    validUntil: null,
    ...options,
  };
}

function account(options: { rate?: number; share?: number; nextSendAt?: number | null; window?: string } = {}) {
  const [start, end] = (options.window ?? "08:00-21:00").split("-") as [string, string];
  const state: AccountState = {
    id: "acc",
    pace: {
      nextSendAt: options.nextSendAt ?? null,
      bulkNextSendAt: null,
      ratePerSecond: options.rate ?? 10,
      bulkShare: options.share ?? 0.5,
    },
    stored: { nextSendAt: null, bulkNextSendAt: null },
    timeZone: NY,
    window: { start, end },
  };
  return state;
}

function plan(input: {
  ready: HeldNumber[];
  queues: Record<string, QueuedMessage[]>;
  account?: AccountState;
  zones?: Record<string, string | null>;
  now?: number;
  horizon?: number;
}) {
  return planRound({
    now: input.now ?? T0,
    horizon: input.horizon ?? HORIZON,
    ready: input.ready,
    queues: new Map(Object.entries(input.queues)),
    accounts: new Map([["acc", input.account ?? account()]]),
    zones: new Map(Object.entries(input.zones ?? {})),
  });
}

/** Each planned part as "number:messageId@ms after T0". */
const summary = (p: ReturnType<typeof planRound>) =>
  p.allocations.map((a) => `${a.message.from}:${a.message.messageId}@${a.at - T0}`);

describe("the round's horizon", () => {
  it("reaches the next poll, or twice the preparation time when that is longer, at most a second", () => {
    expect(roundHorizon(T0, 100, 0) - T0).toBe(100);
    expect(roundHorizon(T0, 100, 80.2) - T0).toBe(161);
    expect(roundHorizon(T0, 100, 5_000) - T0).toBe(1000);
    expect(roundHorizon(T0, 2_000, 5_000) - T0).toBe(2000);
  });
});

describe("the numbers ready for a round", () => {
  it("are those with no part in flight whose slot comes by the horizon, earliest slot first", () => {
    const numbers = [
      held("late", { nextSendAt: T0 + 500 }),
      held("soon", { nextSendAt: T0 + 50 }),
      held("idle", { nextSendAt: null }),
      held("busy", { nextSendAt: T0 - 1000 }),
      held("now", { nextSendAt: T0 }),
    ];
    const ready = readyNumbers(T0, HORIZON, numbers, new Set(["busy"]));
    expect(ready.map((n) => n.number)).toEqual(["idle", "now", "soon"]);
  });
});

describe("a round's plan", () => {
  it("gives each number one part, at the later of its own slot and the account's, and moves both paces on", () => {
    const a = message("a");
    const b = message("b");
    const p = plan({
      ready: [held("a"), held("b", { nextSendAt: T0 + 40 })],
      queues: { a: [a, message("a")], b: [b] },
    });
    // The account's 10/s spaces its parts 100 ms apart: b's slot (40 ms) waits for the account's (100 ms).
    expect(summary(p)).toEqual([`a:${a.messageId}@0`, `b:${b.messageId}@100`]);
    expect(p.numberPaces.get("a")!.nextSendAt! - T0).toBe(1000);
    expect(p.numberPaces.get("b")!.nextSendAt! - T0).toBe(1100);
    expect(p.accountPaces.get("acc")!.nextSendAt! - T0).toBe(200);
    expect(p.allocations.map((x) => x.slot)).toEqual([
      { before: null, after: T0 + 1000 },
      { before: T0 + 40, after: T0 + 1100 },
    ]);
  });

  it("passes over a message whose validity ran out before it began, and carries the validity of the one it sends", () => {
    const stale = message("a", { validUntil: T0 - 1 });
    const fresh = message("a", { validUntil: T0 + 60_000 });
    const begun = message("b", { validUntil: T0 - 1, partsSubmitted: 1, numSegments: 2, inProgress: true });
    const p = plan({ ready: [held("a"), held("b")], queues: { a: [stale, fresh], b: [begun] } });
    expect(summary(p)).toEqual([`a:${fresh.messageId}@0`, `b:${begun.messageId}@100`]);
    expect(p.allocations[0]!.part.validUntil).toBe(T0 + 60_000);
  });

  it("leaves out the parts the account limit pushes past the horizon; nothing is changed for them", () => {
    const p = plan({
      ready: [held("a"), held("b"), held("c")],
      queues: { a: [message("a")], b: [message("b")], c: [message("c")] },
      account: account({ rate: 1 }),
      horizon: T0 + 100,
    });
    expect(p.allocations.map((x) => x.message.from)).toEqual(["a"]);
    expect([...p.numberPaces.keys()]).toEqual(["a"]);
  });

  it("does not change the numbers, queues or accounts it is given", () => {
    const numbers = [held("a"), held("b")];
    const acc = account();
    const queues = { a: [message("a")], b: [message("b", { bulk: true })] };
    const before = JSON.stringify({ numbers, acc, queues });
    plan({ ready: numbers, queues, account: acc });
    expect(JSON.stringify({ numbers, acc, queues })).toBe(before);
  });

  it("serves the account's slots first to the numbers whose next message is ad hoc", () => {
    const bulk = message("bulky", { bulk: true });
    const adhoc = message("plain");
    const p = plan({
      // bulky's slot is earlier, but plain's next message is ad hoc: plain takes the account's first slot.
      ready: [held("bulky", { nextSendAt: T0 - 10 }), held("plain", { nextSendAt: T0 })],
      queues: { bulky: [bulk], plain: [adhoc] },
      account: account({ rate: 10, share: 0.5 }),
    });
    expect(summary(p)).toEqual([`plain:${adhoc.messageId}@0`, `bulky:${bulk.messageId}@100`]);
    // The bulk lane moves on by the account's rate times its bulk share: 5/s, 200 ms.
    expect(p.accountPaces.get("acc")!.bulkNextSendAt! - T0).toBe(300);
  });

  it("holds bulk back outside the window in the destination's zone, and lets ad hoc by", () => {
    // 07:00 in Los Angeles is before the 08:00 window; 10:00 in New York is inside it.
    const toLa = message("a", { bulk: true, to: "14155550123", createdAt: T0 - 2000 });
    const toNy = message("b", { bulk: true, to: "12125550000", createdAt: T0 - 2000 });
    const adhoc = message("c", { to: "14155550123" });
    const p = plan({
      ready: [held("a"), held("b"), held("c")],
      queues: { a: [toLa], b: [toNy], c: [adhoc] },
      zones: { "14155550123": LA, "12125550000": NY },
      horizon: T0 + 1000,
    });
    expect(p.allocations.map((x) => x.message.messageId)).toEqual([adhoc.messageId, toNy.messageId]);
  });

  it("counts the account's zone for a destination whose zone is unknown", () => {
    const bulk = message("a", { bulk: true, to: "99912345" });
    const inside = plan({ ready: [held("a")], queues: { a: [bulk] }, zones: { "99912345": null } });
    expect(inside.allocations).toHaveLength(1);
    const outside = plan({
      ready: [held("a")],
      queues: { a: [bulk] },
      zones: { "99912345": null },
      account: account({ window: "11:00-21:00" }),
    });
    expect(outside.allocations).toHaveLength(0);
  });

  it("finishes a message already partly sent first, even bulk outside its window", () => {
    const partly = message("a", { bulk: true, inProgress: true, partsSubmitted: 1, numSegments: 2, to: "1415" });
    const older = message("a", { createdAt: T0 - 3_600_000 });
    const p = plan({
      ready: [held("a")],
      queues: { a: [older, partly] },
      zones: { "1415": LA },
      horizon: T0 + 1000,
    });
    expect(p.allocations.map((x) => [x.message.messageId, x.part.segmentNumber])).toEqual([[partly.messageId, 2]]);
  });

  it("passes over a message waiting for its retry time, and takes it once that has come", () => {
    const retrying = message("a", { eligibleAt: T0 + 5_000, createdAt: T0 - 3_600_000 });
    const next = message("a");
    expect(plan({ ready: [held("a")], queues: { a: [retrying, next] } }).allocations[0]!.message).toBe(next);
    const later = plan({ ready: [held("a")], queues: { a: [retrying, next] }, now: T0 + 5_000, horizon: T0 + 5_100 });
    expect(later.allocations[0]!.message).toBe(retrying);
  });

  it("skips numbers with an empty queue or no account, and keeps each part's holding", () => {
    const p = plan({
      ready: [held("empty"), held("stranger", { accountId: "other" }), held("a", { holding: 7 })],
      queues: { empty: [], stranger: [message("stranger")], a: [message("a")] },
    });
    expect(p.allocations.map((x) => [x.message.from, x.holding])).toEqual([["a", 7]]);
  });
});

describe("the part handed to the carrier", () => {
  it("is the next segment of a long text, with the message's concatenation reference", () => {
    const body = "x".repeat(200);
    const m = message("a", { messageId: "0000-00ff", body, numSegments: 2, partsSubmitted: 1, inProgress: true });
    const part = partOf(m);
    expect(part).toMatchObject({ segmentNumber: 2, totalSegments: 2, concatReference: 255, from: "a" });
    expect(part.text).toBe("x".repeat(200 - 153));
  });

  it("is the whole message, with its media, when it carries media", () => {
    const m = message("a", { media: ["https://example.com/cat.jpg"], numSegments: 2, body: "y".repeat(200) });
    expect(partOf(m)).toMatchObject({ segmentNumber: 1, totalSegments: 2, text: "y".repeat(200), media: m.media });
  });
});

describe("the destinations whose zone a round looks up", () => {
  it("are those of bulk messages not yet begun, each once", () => {
    const queues = new Map([
      ["a", [message("a", { bulk: true, to: "1" }), message("a", { to: "2" })]],
      ["b", [message("b", { bulk: true, to: "1" }), message("b", { bulk: true, inProgress: true, to: "3" })]],
      ["c", [message("c", { bulk: true, to: "4" })]],
    ]);
    expect(bulkDestinations(queues)).toEqual(["1", "4"]);
  });
});
