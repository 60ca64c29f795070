import { describe, expect, it } from "vitest";
import { localDay } from "../../lib/accounts/local-time";

// The dashboard's "today" in the account's time zone, across offsets and daylight-saving changes.
describe("localDay", () => {
  it.each([
    ["UTC", "2026-11-22T16:00:00Z", "2026-11-22", "2026-11-22T00:00:00.000Z"],
    ["America/New_York", "2026-11-22T16:00:00Z", "2026-11-22", "2026-11-22T05:00:00.000Z"],
    ["America/New_York", "2026-11-22T03:00:00Z", "2026-11-21", "2026-11-21T05:00:00.000Z"],
    ["America/New_York", "2026-03-08T20:00:00Z", "2026-03-08", "2026-03-08T05:00:00.000Z"],
    ["America/New_York", "2026-11-01T20:00:00Z", "2026-11-01", "2026-11-01T04:00:00.000Z"],
    ["Asia/Kolkata", "2026-11-22T20:00:00Z", "2026-11-23", "2026-11-22T18:30:00.000Z"],
    ["Pacific/Chatham", "2026-11-22T12:00:00Z", "2026-11-23", "2026-11-22T10:15:00.000Z"],
    ["America/Santiago", "2026-09-06T15:00:00Z", "2026-09-06", "2026-09-06T04:00:00.000Z"],
  ])("in %s at %s the day is %s, from %s", (zone, now, date, start) => {
    const day = localDay(new Date(now), zone);
    expect(day.date).toBe(date);
    expect(day.start.toISOString()).toBe(start);
  });
});
