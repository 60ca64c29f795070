import { describe, expect, it } from "vitest";
import { culprits, hasLookAlikes, readableChar, smartEncode } from "../../lib/segments/smart-encoding";
import { countSegments } from "../../lib/segments/count-segments";
import { isGsm7 } from "../../lib/segments/gsm7";
import { parseIsoWithOffset } from "../../lib/messaging/send-schema";
import { relativeValidity } from "../../lib/carriers/smpp/send-submit-sm";
import { lookAlikeFix } from "../../components/conversations/segment-counter";

describe("smart encoding", () => {
  it("replaces word processors' quotes, dashes, spaces and the ellipsis with GSM-7 characters", () => {
    const text = "\u201cIt\u2019s ready\u201d \u2013 pick up at 5\u00a0pm\u2026 \u2018thanks\u2019 \u2014 Ana";
    const { text: fixed, replaced } = smartEncode(text);
    expect(fixed).toBe("\"It's ready\" - pick up at 5 pm... 'thanks' - Ana");
    expect(replaced).toEqual(["\u201c", "\u2019", "\u201d", "\u2013", "\u00a0", "\u2026", "\u2018", "\u2014"]);
    expect(isGsm7(fixed)).toBe(true);
    expect(countSegments(text)).toMatchObject({ encoding: "UCS2", numSegments: 1 });
    expect(countSegments(fixed)).toMatchObject({ encoding: "GSM7", numSegments: 1 });
  });

  it("drops invisible characters and leaves letters of other alphabets and emoji alone", () => {
    expect(smartEncode("co\u00adop\u200b\ufeff")).toEqual({ text: "coop", replaced: ["\u00ad", "\u200b", "\ufeff"] });
    const foreign = "Привет \u2014 😀";
    expect(smartEncode(foreign)).toEqual({ text: "Привет - 😀", replaced: ["\u2014"] });
    expect(smartEncode("plain text")).toEqual({ text: "plain text", replaced: [] });
    expect(hasLookAlikes("plain text")).toBe(false);
    expect(hasLookAlikes("it\u2019s")).toBe(true);
  });

  it("names the characters nobody can see", () => {
    expect(["\u2019", "\u00a0", "\u200b", "\u2003"].map(readableChar)).toEqual([
      "\u2019",
      "no-break space",
      "zero-width space",
      "special space",
    ]);
  });

  it("names the characters that keep a text out of GSM-7, each once and whole", () => {
    expect(culprits("m\u00e1s \u00e1 ok", "LATIN1")).toEqual(["\u00e1"]);
    expect(culprits("Hi 😀 \u2019 😀", "UCS2")).toEqual(["😀", "\u2019"]);
    expect(culprits("Hi {there}", "GSM7")).toEqual([]);
  });

  it("offers the composer a fix only when it saves segments or the alphabet", () => {
    const text = "Don\u2019t be late";
    expect(lookAlikeFix(text, countSegments(text))).toEqual({
      text: "Don't be late",
      replaced: ["\u2019"],
      numSegments: 1,
    });
    // An emoji keeps it UCS-2 whatever is replaced: nothing to gain.
    const emoji = "Don\u2019t be late 😀";
    expect(lookAlikeFix(emoji, countSegments(emoji))).toBeNull();
    expect(lookAlikeFix("plain", countSegments("plain"))).toBeNull();
  });
});

describe("a scheduled send's time", () => {
  it("reads ISO 8601 date-times with an offset, and nothing else", () => {
    expect(parseIsoWithOffset("2026-12-01T09:30:00+01:00")).toBe(Date.UTC(2026, 11, 1, 8, 30));
    expect(parseIsoWithOffset("2026-12-01T08:30Z")).toBe(Date.UTC(2026, 11, 1, 8, 30));
    expect(parseIsoWithOffset("2026-12-01T08:30:15.250z")).toBe(Date.UTC(2026, 11, 1, 8, 30, 15, 250));
    expect(parseIsoWithOffset("2026-12-01T03:30:00-05:00")).toBe(Date.UTC(2026, 11, 1, 8, 30));
    for (const bad of [
      "2026-12-01T09:30:00",
      "2026-12-01",
      "2026-02-30T10:00:00Z",
      "2026-12-01T24:00:00Z",
      "soon",
      "",
    ]) {
      expect(parseIsoWithOffset(bad), bad).toBeNull();
    }
  });
});

describe("SMPP's validity_period", () => {
  it("is the time left in the relative form, at least a second", () => {
    expect(relativeValidity(60_000)).toBe("000000000100000R");
    expect(relativeValidity(36 * 3600_000)).toBe("000001120000000R");
    expect(relativeValidity(90_500)).toBe("000000000131000R");
    expect(relativeValidity(-5_000)).toBe("000000000001000R");
  });
});
