import { beforeAll, describe, expect, it } from "vitest";
import { reloadEnv } from "../../lib/env";
import type { Step, Steps } from "../../lib/db/steps";
import { QUEUED_STATUSES } from "../../lib/messaging/message-status";
import {
  keptSdrs,
  recordTransitions,
  sdrRow,
  TransitionGroups,
  type Transitions,
} from "../../lib/messaging/record-transitions";

// The pure parts of the one way a message's state changes: which statements a batch of changes costs (no database:
// the steps are driven by hand, each statement answered with what the test says), and the helpers callers use.

beforeAll(() => {
  process.env.DATABASE_URL = "file:./unused-by-these-tests.db";
  reloadEnv();
});

/** Runs `steps`, answering each query with `answer(sql)`; returns the steps taken and the result. */
function drive<T>(steps: Steps<T>, answer: (sql: string) => unknown[] = () => []): { taken: Step[]; result: T } {
  const taken: Step[] = [];
  let next = steps.next();
  while (!next.done) {
    const step = next.value;
    taken.push(step);
    next = steps.next(step.kind === "query" ? answer(step.sql) : step.kind === "execute" ? 1 : undefined);
  }
  return { taken, result: next.value };
}

const kinds = (taken: Step[]) =>
  taken.map((s) => (s.kind === "afterCommit" ? "afterCommit" : s.sql.trim().split(/\s+/).slice(0, 3).join(" ")));

describe("recordTransitions", () => {
  it("costs one UPDATE per distinct change, one INSERT of SDRs, and a wake-up after commit", () => {
    const at = Date.now();
    const transitions: Transitions = {
      changes: [
        { ids: ["m1", "m2", "m3"], set: { status: "sent" } },
        { ids: ["m4"], set: { attempts: 1, status: "queued" } },
      ],
      sdrs: ["m1", "m2", "m3", "m4"].map((id) => sdrRow(id, "a1", "message_sent", at, { segmentNumber: 1 })),
      at: new Date(at),
    };
    const { taken, result } = drive(recordTransitions(transitions));
    expect(kinds(taken)).toEqual(['UPDATE "Message" SET', 'UPDATE "Message" SET', 'INSERT INTO "Sdr"', "afterCommit"]);
    expect(result.size).toBe(0);
  });

  it("reads the messages' webhook endpoints only when an SDR is a part's outcome", () => {
    const at = Date.now();
    const { taken } = drive(
      recordTransitions({
        changes: [{ ids: ["m1"], set: { status: "delivered" } }],
        sdrs: [sdrRow("m1", "a1", "delivered", at, { segmentNumber: 1 })],
        at: new Date(at),
      }),
    );
    // No endpoint configured (the read finds none): no event is written.
    expect(kinds(taken)).toEqual([
      'UPDATE "Message" SET',
      'INSERT INTO "Sdr"',
      "afterCommit",
      'SELECT m."id", m."accountId",',
    ]);
  });

  it("drops the SDRs of messages a guarded change did not move, and says which", () => {
    const at = Date.now();
    const { taken, result } = drive(
      recordTransitions({
        changes: [{ ids: ["m1", "m2"], set: { status: "sending" }, onlyFrom: { status: QUEUED_STATUSES } }],
        sdrs: ["m1", "m2"].map((id) => sdrRow(id, "a1", "sending", at, { segmentNumber: 1 })),
        at: new Date(at),
      }),
      (sql) => (sql.startsWith("UPDATE") ? [{ id: "m1" }] : []),
    );
    expect([...result]).toEqual(["m2"]);
    const insert = taken.find((s) => s.kind === "execute" && s.sql.startsWith('INSERT INTO "Sdr"'));
    expect(insert?.kind === "execute" && insert.values).toContain("m1");
    expect(insert?.kind === "execute" && insert.values).not.toContain("m2");
  });

  it("writes nothing for nothing", () => {
    expect(drive(recordTransitions({ changes: [{ ids: [], set: { status: "sent" } }], at: new Date() })).taken).toEqual(
      [],
    );
  });
});

describe("the helpers", () => {
  it("groups messages by their change", () => {
    const groups = new TransitionGroups();
    groups.add({ status: "sent", attempts: 0 }, "m1");
    groups.add({ status: "queued", attempts: 1 }, "m2");
    groups.add({ status: "sent", attempts: 0 }, "m3");
    expect(groups.list()).toEqual([
      { set: { status: "sent", attempts: 0 }, ids: ["m1", "m3"] },
      { set: { status: "queued", attempts: 1 }, ids: ["m2"] },
    ]);
  });

  it("applies a message's changes in the order they came before grouping it", () => {
    const groups = new TransitionGroups();
    groups.add({ partsSubmitted: 2, status: "sent" }, "m1");
    groups.add({ partsSubmitted: 1 }, "m2");
    groups.add({ partsSubmitted: 2, status: "sent" }, "m2");
    expect(groups.list()).toEqual([{ set: { partsSubmitted: 2, status: "sent" }, ids: ["m1", "m2"] }]);
  });

  it("keeps every SDR when every change was made, and only the moved messages' otherwise", () => {
    const sdrs = ["m1", "m2"].map((id) => sdrRow(id, "a1", "rejected", 0));
    expect(keptSdrs(sdrs, new Set())).toBe(sdrs);
    expect(keptSdrs(sdrs, new Set(["m2"])).map((s) => s.messageId)).toEqual(["m1"]);
  });

  it("builds SDR rows with the defaults the log expects", () => {
    expect(sdrRow("m1", "a1", "queued", 0)).toEqual({
      messageId: "m1",
      accountId: "a1",
      status: "queued",
      statusDetails: "",
      segmentNumber: null,
      referenceId: null,
      createdAt: new Date(0),
    });
  });

  it("knows the statuses of a message still in the queue", () => {
    expect(QUEUED_STATUSES).toEqual(["queued", "sending"]);
  });
});
