import { describe, it, expect } from "vitest";
import {
  GSM7_BASE_TABLE,
  GSM7_ESCAPE,
  GSM7_EXTENSION_TABLE,
  encodeGsm7,
  gsm7Septets,
  isGsm7,
} from "../../lib/segments/gsm7";
import { type Encoding, countSegments } from "../../lib/segments/count-segments";
import { splitSegments } from "../../lib/segments/split-segments";

const EMOJI = "😀"; // U+1F600, a surrogate pair
const LATIN1_ONLY = "á"; // in Latin-1, not in GSM7
const UCS2_ONLY = "Ж"; // BMP, in neither GSM7 nor Latin-1

const SINGLE: Record<Encoding, number> = { GSM7: 160, LATIN1: 140, UCS2: 70 };
const PART: Record<Encoding, number> = { GSM7: 153, LATIN1: 134, UCS2: 67 };

function unitsOf(text: string, encoding: Encoding): number {
  return encoding === "GSM7" ? encodeGsm7(text).length : text.length;
}

/** The invariants every split must keep, checked against countSegments. */
function expectConsistentSplit(text: string): string[] {
  const info = countSegments(text);
  const { encoding, parts } = splitSegments(text);
  expect(encoding).toBe(info.encoding);
  expect(parts).toHaveLength(info.numSegments);
  expect(parts.join("")).toBe(text);
  expect(info.units).toBe(unitsOf(text, encoding));
  const capacity = parts.length === 1 ? SINGLE[encoding] : PART[encoding];
  expect(info.perSegment).toBe(capacity);
  for (const [index, part] of parts.entries()) {
    expect(unitsOf(part, encoding)).toBeLessThanOrEqual(capacity);
    if (parts.length > 1) expect(part.length).toBeGreaterThan(0);
    // no surrogate pair straddles two parts
    expect(/[\uD800-\uDBFF]$/.test(part) && /^[\uDC00-\uDFFF]/.test(parts[index + 1] ?? "")).toBe(false);
  }
  return parts;
}

describe("GSM7 alphabet", () => {
  it("has a 128-entry base table with the escape at 0x1B", () => {
    expect(GSM7_BASE_TABLE).toHaveLength(128);
    expect(GSM7_ESCAPE).toBe(0x1b);
    expect(gsm7Septets(0x1b)).toBe(0);
  });

  it("encodes base characters at their table positions", () => {
    expect(encodeGsm7("@")).toEqual([0x00]);
    expect(encodeGsm7("£")).toEqual([0x01]);
    expect(encodeGsm7("$")).toEqual([0x02]);
    expect(encodeGsm7("¥")).toEqual([0x03]);
    expect(encodeGsm7("Ç")).toEqual([0x09]);
    expect(encodeGsm7("\n")).toEqual([0x0a]);
    expect(encodeGsm7("\r")).toEqual([0x0d]);
    expect(encodeGsm7("Δ")).toEqual([0x10]);
    expect(encodeGsm7("_")).toEqual([0x11]);
    expect(encodeGsm7("Ξ")).toEqual([0x1a]);
    expect(encodeGsm7("É")).toEqual([0x1f]);
    expect(encodeGsm7(" ")).toEqual([0x20]);
    expect(encodeGsm7("¤")).toEqual([0x24]);
    expect(encodeGsm7("0")).toEqual([0x30]);
    expect(encodeGsm7("¡")).toEqual([0x40]);
    expect(encodeGsm7("A")).toEqual([0x41]);
    expect(encodeGsm7("Ä")).toEqual([0x5b]);
    expect(encodeGsm7("§")).toEqual([0x5f]);
    expect(encodeGsm7("¿")).toEqual([0x60]);
    expect(encodeGsm7("a")).toEqual([0x61]);
    expect(encodeGsm7("ü")).toEqual([0x7e]);
    expect(encodeGsm7("à")).toEqual([0x7f]);
  });

  it("encodes extension characters as escape + septet", () => {
    expect(encodeGsm7("€")).toEqual([0x1b, 0x65]);
    expect(encodeGsm7("[")).toEqual([0x1b, 0x3c]);
    expect(encodeGsm7("]")).toEqual([0x1b, 0x3e]);
    expect(encodeGsm7("{")).toEqual([0x1b, 0x28]);
    expect(encodeGsm7("}")).toEqual([0x1b, 0x29]);
    expect(encodeGsm7("\\")).toEqual([0x1b, 0x2f]);
    expect(encodeGsm7("^")).toEqual([0x1b, 0x14]);
    expect(encodeGsm7("~")).toEqual([0x1b, 0x3d]);
    expect(encodeGsm7("|")).toEqual([0x1b, 0x40]);
    expect(encodeGsm7("\f")).toEqual([0x1b, 0x0a]);
  });

  it("encodes a mixed text in order", () => {
    expect(encodeGsm7("Hi €5\n")).toEqual([0x48, 0x69, 0x20, 0x1b, 0x65, 0x35, 0x0a]);
  });

  it("costs one septet per base character and two per extension character", () => {
    for (let septet = 0; septet < 128; septet++) {
      if (septet === 0x1b) continue;
      const char = GSM7_BASE_TABLE[septet]!;
      expect(gsm7Septets(char.charCodeAt(0))).toBe(1);
      expect(encodeGsm7(char)).toEqual([septet]);
    }
    expect(GSM7_EXTENSION_TABLE.size).toBe(10);
    for (const char of GSM7_EXTENSION_TABLE.keys()) expect(gsm7Septets(char.charCodeAt(0))).toBe(2);
  });

  it("leaves out characters that look close but are not in the table", () => {
    for (const char of ["ç", "á", "ð", "í", "ó", "ú", "â", "ê", "`", "\t", "\u0000", "\u001b", "ς", UCS2_ONLY]) {
      expect(gsm7Septets(char.charCodeAt(0))).toBe(0);
    }
    expect(isGsm7("Ça va")).toBe(true);
    expect(isGsm7("ça va")).toBe(false);
    expect(isGsm7(`hi ${EMOJI}`)).toBe(false);
  });

  it("refuses to encode a character outside the alphabet", () => {
    expect(() => encodeGsm7("ça")).toThrow(RangeError);
    expect(() => encodeGsm7(EMOJI)).toThrow(/not in the GSM7 alphabet/);
  });
});

describe("countSegments: GSM7", () => {
  it("counts an empty body as one GSM7 segment", () => {
    expect(countSegments("")).toEqual({ encoding: "GSM7", numSegments: 1, units: 0, perSegment: 160 });
    expect(splitSegments("")).toEqual({ encoding: "GSM7", parts: [""] });
  });

  it.each([
    [1, 1, 160],
    [160, 1, 160],
    [161, 2, 153],
    [306, 2, 153],
    [307, 3, 153],
    [459, 3, 153],
    [460, 4, 153],
    [1530, 10, 153],
    [1531, 11, 153],
  ])("%i septets -> %i segments of %i", (length, numSegments, perSegment) => {
    const text = "a".repeat(length);
    expect(countSegments(text)).toEqual({ encoding: "GSM7", numSegments, units: length, perSegment });
    expectConsistentSplit(text);
  });

  it("keeps GSM7 for text with CR, LF and the Greek capitals", () => {
    const text = "Line 1\r\nΔΦΓΛΩΠΨΣΘΞ @£$¥ èéùìò ÇØøÅåÆæßÉ ¤§¿¡ ÄÖÑÜäöñüà";
    expect(countSegments(text)).toMatchObject({ encoding: "GSM7", units: text.length, numSegments: 1 });
  });

  it("counts extension characters as two septets", () => {
    expect(countSegments("€".repeat(80))).toEqual({ encoding: "GSM7", numSegments: 1, units: 160, perSegment: 160 });
    expect(countSegments("€".repeat(81))).toEqual({ encoding: "GSM7", numSegments: 2, units: 162, perSegment: 153 });
    expect(countSegments("a".repeat(158) + "{")).toMatchObject({ encoding: "GSM7", numSegments: 1, units: 160 });
    expect(countSegments("a".repeat(159) + "{")).toMatchObject({ encoding: "GSM7", numSegments: 2, units: 161 });
    expect(countSegments("\f")).toMatchObject({ encoding: "GSM7", units: 2 });
  });

  it("does not split an escape pair at a part boundary", () => {
    const text = "a".repeat(152) + "€" + "a".repeat(10);
    expect(countSegments(text)).toMatchObject({ encoding: "GSM7", numSegments: 2, units: 164 });
    const parts = expectConsistentSplit(text);
    expect(parts).toEqual(["a".repeat(152), "€" + "a".repeat(10)]);
  });

  it("counts the part left one septet short", () => {
    // 306 septets would fill exactly two parts, but the pair cannot straddle the first boundary
    const text = "a".repeat(152) + "€" + "a".repeat(152);
    expect(countSegments(text)).toEqual({ encoding: "GSM7", numSegments: 3, units: 306, perSegment: 153 });
    expect(expectConsistentSplit(text).map((part) => encodeGsm7(part).length)).toEqual([152, 153, 1]);
  });

  it("fills a part exactly when the pair ends on the boundary", () => {
    const text = "a".repeat(151) + "€" + "a".repeat(10);
    expect(expectConsistentSplit(text)).toEqual(["a".repeat(151) + "€", "a".repeat(10)]);
  });

  it("packs 76 extension characters per part", () => {
    // € is not Latin-1, so GSM7 (3 segments) beats UCS-2 (153 units, 3 segments) on the tie
    expect(countSegments("€".repeat(153))).toEqual({ encoding: "GSM7", numSegments: 3, units: 306, perSegment: 153 });
    const parts = expectConsistentSplit("€".repeat(153));
    expect(parts.map((part) => part.length)).toEqual([76, 76, 1]);
  });
});

describe("countSegments: Latin-1", () => {
  it.each(["á", "ð", "ç", "í", "\t", "`", "©", "ÿ"])("chooses Latin-1 for %j", (char) => {
    expect(countSegments(`caf${char}`)).toEqual({ encoding: "LATIN1", numSegments: 1, units: 4, perSegment: 140 });
  });

  it.each([
    [140, 1, 140],
    [141, 2, 134],
    [268, 2, 134],
    [269, 3, 134],
    [402, 3, 134],
    [403, 4, 134],
  ])("%i octets -> %i segments of %i", (length, numSegments, perSegment) => {
    const text = LATIN1_ONLY + "a".repeat(length - 1);
    expect(countSegments(text)).toEqual({ encoding: "LATIN1", numSegments, units: length, perSegment });
    expectConsistentSplit(text);
  });

  it("counts an extension character as one octet", () => {
    expect(countSegments(LATIN1_ONLY + "{".repeat(139))).toMatchObject({
      encoding: "LATIN1",
      numSegments: 1,
      units: 140,
    });
  });
});

describe("countSegments: UCS-2", () => {
  it.each([
    [70, 1, 70],
    [71, 2, 67],
    [134, 2, 67],
    [135, 3, 67],
    [201, 3, 67],
    [202, 4, 67],
  ])("%i units -> %i segments of %i", (length, numSegments, perSegment) => {
    const text = UCS2_ONLY + "a".repeat(length - 1);
    expect(countSegments(text)).toEqual({ encoding: "UCS2", numSegments, units: length, perSegment });
    expectConsistentSplit(text);
  });

  it("falls back to UCS-2 when GSM7 and Latin-1 each miss a character", () => {
    expect(countSegments("€ and á")).toMatchObject({ encoding: "UCS2", units: 7 });
    expect(countSegments("Δ and á")).toMatchObject({ encoding: "UCS2", units: 7 });
  });

  it("counts an emoji as a surrogate pair of two units", () => {
    expect(countSegments(EMOJI)).toEqual({ encoding: "UCS2", numSegments: 1, units: 2, perSegment: 70 });
    expect(countSegments(EMOJI.repeat(35))).toEqual({ encoding: "UCS2", numSegments: 1, units: 70, perSegment: 70 });
    expect(countSegments(EMOJI.repeat(36))).toEqual({ encoding: "UCS2", numSegments: 2, units: 72, perSegment: 67 });
  });

  it("packs 33 emoji per part, never splitting a pair", () => {
    const parts = expectConsistentSplit(EMOJI.repeat(36));
    expect(parts).toEqual([EMOJI.repeat(33), EMOJI.repeat(3)]);
  });

  it("moves a surrogate pair on the 67th/68th unit to the next part", () => {
    const text = "a".repeat(66) + EMOJI + "a".repeat(5);
    expect(countSegments(text)).toMatchObject({ encoding: "UCS2", numSegments: 2, units: 73 });
    expect(expectConsistentSplit(text)).toEqual(["a".repeat(66), EMOJI + "a".repeat(5)]);
  });

  it("counts the part left one unit short", () => {
    // 134 units would fill exactly two parts, but the pair cannot straddle the first boundary
    const text = "a".repeat(66) + EMOJI + "a".repeat(66);
    expect(countSegments(text)).toEqual({ encoding: "UCS2", numSegments: 3, units: 134, perSegment: 67 });
    expect(expectConsistentSplit(text).map((part) => part.length)).toEqual([66, 67, 1]);
  });

  it("fills a part exactly when the pair ends on the boundary", () => {
    const text = "a".repeat(65) + EMOJI + "a".repeat(10);
    expect(expectConsistentSplit(text)).toEqual(["a".repeat(65) + EMOJI, "a".repeat(10)]);
  });

  it("counts a lone surrogate as one unit", () => {
    expect(countSegments("a\uD83D")).toMatchObject({ encoding: "UCS2", units: 2 });
    expect(countSegments("\uDE00a")).toMatchObject({ encoding: "UCS2", units: 2 });
  });
});

describe("countSegments: the fewest segments win", () => {
  it("prefers GSM7 over Latin-1 on a tie", () => {
    expect(countSegments("[".repeat(80))).toMatchObject({ encoding: "GSM7", numSegments: 1, units: 160 });
    // GSM7 282 septets in 2 parts (76 + 65 pairs), Latin-1 141 octets in 2 parts
    expect(countSegments("{".repeat(141))).toMatchObject({ encoding: "GSM7", numSegments: 2, units: 282 });
  });

  it("chooses Latin-1 when the escape pairs push GSM7 into more segments", () => {
    expect(countSegments("[".repeat(81))).toEqual({ encoding: "LATIN1", numSegments: 1, units: 81, perSegment: 140 });
    expect(countSegments("{".repeat(140))).toEqual({ encoding: "LATIN1", numSegments: 1, units: 140, perSegment: 140 });
    // GSM7: 5 parts of 76 pairs = 380 chars, needs 6 parts for 400; Latin-1: 134 + 134 + 132
    expect(countSegments("|".repeat(400))).toEqual({ encoding: "LATIN1", numSegments: 3, units: 400, perSegment: 134 });
    expect(splitSegments("[".repeat(81))).toEqual({ encoding: "LATIN1", parts: ["[".repeat(81)] });
  });

  it("keeps GSM7 when Latin-1 cannot carry the text", () => {
    // € is not Latin-1, so 81 '€' stays GSM7 in 2 segments rather than UCS-2 in 2
    expect(countSegments("€".repeat(81))).toMatchObject({ encoding: "GSM7", numSegments: 2 });
    // Δ is not Latin-1: 162 septets of GSM7 (2 segments) beat 81 UCS-2 units (2 segments) on the tie
    expect(countSegments("Δ" + "[".repeat(80))).toMatchObject({ encoding: "GSM7", numSegments: 2, units: 161 });
  });
});

describe("splitSegments", () => {
  it("returns a single-segment text whole", () => {
    expect(splitSegments("Hello")).toEqual({ encoding: "GSM7", parts: ["Hello"] });
    expect(splitSegments("a".repeat(160)).parts).toEqual(["a".repeat(160)]);
    expect(splitSegments(EMOJI.repeat(35)).parts).toEqual([EMOJI.repeat(35)]);
  });

  it("splits plain GSM7 into full parts of 153", () => {
    const parts = expectConsistentSplit("a".repeat(307));
    expect(parts.map((part) => part.length)).toEqual([153, 153, 1]);
  });

  it("splits Latin-1 into parts of 134 and UCS-2 into parts of 67", () => {
    expect(expectConsistentSplit(LATIN1_ONLY + "a".repeat(268)).map((p) => p.length)).toEqual([134, 134, 1]);
    expect(expectConsistentSplit(UCS2_ONLY + "a".repeat(134)).map((p) => p.length)).toEqual([67, 67, 1]);
  });

  it("agrees with countSegments on random texts near every boundary", () => {
    const pool = ["a", "Z", " ", "\n", "é", "Δ", "€", "[", "\f", "á", "ð", "ç", "Ж", "你", EMOJI, "🇫🇷"];
    let seed = 42;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    for (let run = 0; run < 400; run++) {
      // a small subset of the pool per text, so each alphabet gets its share
      const chars = Array.from({ length: 1 + random(3) }, () => pool[random(pool.length)]!);
      let text = "";
      const target = random(480);
      while (text.length < target) text += chars[random(chars.length)]!;
      const parts = expectConsistentSplit(text);
      const { encoding } = splitSegments(text);
      // greedy: the next character would not have fitted in any earlier part
      if (parts.length > 1) {
        for (let i = 0; i < parts.length - 1; i++) {
          const next = String.fromCodePoint(parts[i + 1]!.codePointAt(0)!);
          const nextChar = encoding === "UCS2" ? next : next[0]!;
          expect(unitsOf(parts[i]! + nextChar, encoding)).toBeGreaterThan(PART[encoding]);
        }
      }
    }
  });
});
