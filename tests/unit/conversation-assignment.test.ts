import { describe, expect, it } from "vitest";
import {
  assigneeAfterReply,
  canSee,
  decideAssign,
  describeActivity,
  hasCapacity,
  pickRoundRobin,
  reopensOnInbound,
} from "../../lib/conversations/assign-decisions";

const admin = { userId: "ana", role: "admin" as const };
const ben = { userId: "ben", role: "agent" as const };

describe("who sees a conversation", () => {
  it("everyone sees everything while the account shows agents all conversations", () => {
    expect(canSee(ben, "all", "cleo")).toBe(true);
    expect(canSee(ben, "all", null)).toBe(true);
  });
  it("an agent of an account limited to theirs sees theirs and the unassigned ones only; admins all", () => {
    expect(canSee(ben, "assigned", "ben")).toBe(true);
    expect(canSee(ben, "assigned", null)).toBe(true);
    expect(canSee(ben, "assigned", "cleo")).toBe(false);
    expect(canSee(admin, "assigned", "cleo")).toBe(true);
  });
});

describe("who may assign", () => {
  it("an admin assigns anyone, reassigns and unassigns", () => {
    expect(decideAssign(admin, null, "ben")).toEqual({ ok: true, change: true });
    expect(decideAssign(admin, "ben", "cleo")).toEqual({ ok: true, change: true });
    expect(decideAssign(admin, "ben", null)).toEqual({ ok: true, change: true });
  });
  it("an agent takes an unassigned conversation and hands back their own", () => {
    expect(decideAssign(ben, null, "ben")).toEqual({ ok: true, change: true });
    expect(decideAssign(ben, "ben", null)).toEqual({ ok: true, change: true });
    expect(decideAssign(ben, "ben", "ben")).toEqual({ ok: true, change: false });
  });
  it("an agent never assigns someone else, takes another's, nor unassigns another's", () => {
    expect(decideAssign(ben, null, "cleo").ok).toBe(false);
    expect(decideAssign(ben, "cleo", "ben").ok).toBe(false);
    expect(decideAssign(ben, "cleo", null).ok).toBe(false);
  });
  it("a reply to an unassigned conversation takes it; an assigned one keeps its assignee", () => {
    expect(assigneeAfterReply(null, "ben")).toBe("ben");
    expect(assigneeAfterReply("cleo", "ben")).toBe("cleo");
  });
});

describe("inbound messages", () => {
  it("reopen a resolved or snoozed conversation, not an open one", () => {
    expect(reopensOnInbound("resolved", null)).toBe(true);
    expect(reopensOnInbound("open", new Date())).toBe(true);
    expect(reopensOnInbound("open", null)).toBe(false);
  });
});

describe("round-robin with capacity", () => {
  const at = (s: number) => new Date(1_700_000_000_000 + s * 1000);
  it("gives the next one to whoever was given one longest ago, never-given first", () => {
    const candidates = [
      { userId: "ben", open: 0, lastAssignedAt: at(5) },
      { userId: "cleo", open: 3, lastAssignedAt: null },
      { userId: "dan", open: 0, lastAssignedAt: at(1) },
    ];
    expect(pickRoundRobin(candidates, 0)).toBe("cleo");
    expect(pickRoundRobin(candidates.slice(0, 1).concat(candidates.slice(2)), 0)).toBe("dan");
  });
  it("skips agents at the limit; nobody with room leaves it unassigned", () => {
    const candidates = [
      { userId: "ben", open: 2, lastAssignedAt: null },
      { userId: "cleo", open: 1, lastAssignedAt: at(9) },
    ];
    expect(pickRoundRobin(candidates, 2)).toBe("cleo");
    expect(pickRoundRobin(candidates, 1)).toBeNull();
    expect(pickRoundRobin([], 0)).toBeNull();
    expect(hasCapacity(100, 0)).toBe(true);
  });
  it("breaks ties by fewest open, then by id, so the choice is stable", () => {
    const candidates = [
      { userId: "b", open: 1, lastAssignedAt: null },
      { userId: "a", open: 1, lastAssignedAt: null },
      { userId: "c", open: 0, lastAssignedAt: null },
    ];
    expect(pickRoundRobin(candidates, 0)).toBe("c");
    expect(pickRoundRobin(candidates.slice(0, 2), 0)).toBe("a");
  });
});

describe("activity lines", () => {
  it("read as a person would say them", () => {
    expect(describeActivity({ kind: "assigned", actorName: "Ana", targetName: "Ben" })).toBe(
      "Ana assigned this to Ben",
    );
    expect(describeActivity({ kind: "resolved", actorName: "Ben", targetName: null })).toBe("Ben resolved this");
    expect(describeActivity({ kind: "reopened", actorName: null, targetName: null })).toBe("Reopened by a new message");
    expect(describeActivity({ kind: "assigned", actorName: null, targetName: "Ben" })).toBe(
      "Assigned to Ben automatically",
    );
    expect(describeActivity({ kind: "unassigned", actorName: "Ana", targetName: "Ben" })).toBe("Ana unassigned this");
  });
});
