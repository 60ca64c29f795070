import { describe, expect, it } from "vitest";
import {
  FAILED_STATUSES,
  FINAL_STATUSES,
  MESSAGE_STATUSES,
  PENDING_STATUSES,
  QUEUED_STATUSES,
  WAITING_STATUSES,
  CAMPAIGN_WAITING_STATUSES,
  isFailed,
  isFinal,
  isPending,
  movesForward,
  statusRank,
} from "../../lib/messaging/message-status";
import { LISTING_STATUSES } from "../../lib/messaging/listing-values";
import { isFinalStatus } from "../../lib/messaging/explain-status";

// The one status vocabulary: the seed's lifecycle queued < sending < sent < an outcome, every outcome final, with a
// scheduled send waiting before it and a cancelled one among the outcomes.

describe("message statuses", () => {
  it("lists the lifecycle in order, the outcomes last", () => {
    expect(MESSAGE_STATUSES).toEqual([
      "held",
      "scheduled",
      "queued",
      "sending",
      "sent",
      "delivered",
      "undelivered",
      "failed",
      "expired",
      "rejected",
      "cancelled",
    ]);
    expect(PENDING_STATUSES).toEqual(["held", "scheduled", "queued", "sending", "sent"]);
    expect(FINAL_STATUSES).toEqual(["delivered", "undelivered", "failed", "expired", "rejected", "cancelled"]);
    expect(FAILED_STATUSES).toEqual(["undelivered", "failed", "expired", "rejected", "cancelled"]);
    // The worker's queue leaves a scheduled message out until its time, and a held one until it is released; a
    // cancel takes the waiting ones, a campaign's pause leaves the held ones to their review.
    expect(QUEUED_STATUSES).toEqual(["queued", "sending"]);
    expect(WAITING_STATUSES).toEqual(["held", "scheduled", "queued"]);
    expect(CAMPAIGN_WAITING_STATUSES).toEqual(["scheduled", "queued"]);
    // The listing filters by the same list, not a copy of it.
    expect(LISTING_STATUSES).toBe(MESSAGE_STATUSES);
  });

  it("answers final, failed and pending from that order", () => {
    expect(MESSAGE_STATUSES.filter(isFinal)).toEqual(FINAL_STATUSES);
    expect(MESSAGE_STATUSES.filter(isFailed)).toEqual(FAILED_STATUSES);
    expect(MESSAGE_STATUSES.filter(isPending)).toEqual(PENDING_STATUSES);
    for (const s of ["", "received", "accepted", "pending", "Delivered"]) {
      expect([isFinal(s), isFailed(s), isPending(s)]).toEqual([false, false, false]);
    }
    // An inbound message ("") has no delivery to wait for: settled for the message page.
    expect(isFinalStatus("")).toBe(true);
    expect(isFinalStatus("sent")).toBe(false);
    expect(isFinalStatus("expired")).toBe(true);
  });

  it("moves a message forward only", () => {
    expect(statusRank("")).toBe(0);
    expect(statusRank("received")).toBe(0);
    expect(statusRank("held")).toBeLessThan(statusRank("scheduled"));
    expect(statusRank("scheduled")).toBeLessThan(statusRank("queued"));
    expect(statusRank("queued")).toBeLessThan(statusRank("sending"));
    expect(statusRank("sending")).toBeLessThan(statusRank("sent"));
    expect(new Set(FINAL_STATUSES.map(statusRank)).size).toBe(1);
    expect(statusRank("sent")).toBeLessThan(statusRank("delivered"));
    expect(movesForward("queued", "sent")).toBe(true);
    expect(movesForward("sent", "delivered")).toBe(true);
    expect(movesForward("delivered", "sent")).toBe(false);
    // One outcome never replaces another: a late "failed" after "delivered" changes nothing.
    expect(movesForward("delivered", "failed")).toBe(false);
    expect(movesForward("sent", "sent")).toBe(false);
    expect(movesForward("", "queued")).toBe(true);
    expect(movesForward("scheduled", "queued")).toBe(true);
    expect(movesForward("cancelled", "queued")).toBe(false);
  });
});

describe("the queue's partial index", () => {
  it("holds the messages of QUEUED_STATUSES, as the worker's queries write them, in both providers' migrations", async () => {
    const { readFileSync } = await import("node:fs");
    const { QUEUED_SQL } = await import("../../lib/delivery/delivery-queries");
    for (const provider of ["sqlite", "postgresql"]) {
      const sql = readFileSync(
        `prisma/migrations/${provider}/20261128110000_partial_queue_indexes/migration.sql`,
        "utf8",
      );
      expect(sql, provider).toContain(`WHERE "direction" = 'outbound' AND "status" IN (${QUEUED_SQL});`);
    }
  });
});
