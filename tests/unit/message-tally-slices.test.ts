import { describe, expect, it } from "vitest";
import { newestHours, timeSlices } from "../../lib/messaging/message-tally";

// How a large count behind an answer is cut into slices of time, and where the newest hours of an estimate start.

const hours = [
  { hour: "2026-11-01T00", n: 40 },
  { hour: "2026-11-01T01", n: 70 },
  { hour: "2026-11-01T02", n: 10 },
  { hour: "2026-11-01T05", n: 200 },
  { hour: "2026-11-01T06", n: 30 },
];
const at = (hour: string) => new Date(`${hour}:00:00.000Z`);

describe("timeSlices", () => {
  it("cuts at hour starts, each slice holding at most the rows asked unless one hour holds more", () => {
    expect(timeSlices(hours, 100)).toEqual([
      { begin: undefined, end: at("2026-11-01T01") },
      { begin: at("2026-11-01T01"), end: at("2026-11-01T05") },
      { begin: at("2026-11-01T05"), end: at("2026-11-01T06") },
      { begin: at("2026-11-01T06"), end: undefined },
    ]);
  });

  it("keeps the query's own ends, and a single slice when everything fits", () => {
    const begin = new Date("2026-11-01T00:30:00.000Z");
    const end = new Date("2026-11-01T06:10:00.000Z");
    expect(timeSlices(hours, 1000, begin, end)).toEqual([{ begin, end }]);
    const slices = timeSlices(hours, 100, begin, end);
    expect(slices[0]!.begin).toEqual(begin);
    expect(slices.at(-1)!.end).toEqual(end);
    // Consecutive: each slice starts where the one before ends.
    for (let i = 1; i < slices.length; i++) expect(slices[i]!.begin).toEqual(slices[i - 1]!.end);
  });

  it("is one open slice when there are no hours", () => {
    expect(timeSlices([], 100)).toEqual([{ begin: undefined, end: undefined }]);
  });
});

describe("newestHours", () => {
  it("starts at the newest hour that brings the rows to at least the number asked", () => {
    expect(newestHours(hours, 100)).toEqual({ since: at("2026-11-01T05"), n: 230 });
    expect(newestHours(hours, 20)).toEqual({ since: at("2026-11-01T06"), n: 30 });
    expect(newestHours(hours, 10_000)).toEqual({ since: at("2026-11-01T00"), n: 350 });
  });

  it("starts at the query's begin when that is inside the first hour taken", () => {
    const begin = new Date("2026-11-01T00:30:00.000Z");
    expect(newestHours(hours, 10_000, begin).since).toEqual(begin);
  });
});
