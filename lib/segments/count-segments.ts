/**
 * SMS segment counting.
 *
 * The decisions:
 * - Alphabets are tried in order GSM7, Latin-1 (ISO-8859-1), UCS-2. An
 *   alphabet applies only if every character is representable in it; among
 *   those, the one needing the fewest segments wins, earlier ones winning ties.
 * - Units: GSM7 counts septets (extension-table characters cost two: escape +
 *   char), Latin-1 counts octets (one per character, every char code <= 0xFF),
 *   UCS-2 counts UTF-16 code units (a character outside the BMP is a surrogate
 *   pair, two units).
 * - A single segment holds 160 septets / 140 octets / 70 units. Once the text
 *   needs more, every part carries a six-octet UDH and holds 153 / 134 / 67.
 * - An escape pair or a surrogate pair is never split across parts: if it does
 *   not fit in what is left of a part, it moves wholly to the next part. The
 *   count is therefore the number of parts a greedy packing produces, which is
 *   exactly what splitSegments returns.
 * - An empty body counts as one GSM7 segment of 0 units (an MMS with media only
 *   is priced elsewhere).
 */
import { gsm7Septets } from "./gsm7";

export type Encoding = "GSM7" | "LATIN1" | "UCS2";

export interface SegmentInfo {
  encoding: Encoding;
  numSegments: number;
  /** Septets (GSM7), octets (LATIN1) or UTF-16 code units (UCS2) used by the text. */
  units: number;
  /** Capacity of each segment for this count: 160/140/70 when single, 153/134/67 when concatenated. */
  perSegment: number;
}

const GSM7_SINGLE = 160;
const GSM7_PART = 153;
const LATIN1_SINGLE = 140;
const LATIN1_PART = 134;
const UCS2_SINGLE = 70;
const UCS2_PART = 67;
const LATIN1_MAX = 0xff;

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

export function countSegments(text: string): SegmentInfo {
  const length = text.length;

  // One pass packs the text greedily into concatenated parts for all three
  // alphabets at once; "fill" is what the current part already holds.
  let gsm7 = true;
  let septets = 0;
  let gsm7Parts = 1;
  let gsm7Fill = 0;

  let latin1 = true;
  let latin1Parts = 1;
  let latin1Fill = 0;

  let ucs2Parts = 1;
  let ucs2Fill = 0;

  for (let i = 0; i < length; i++) {
    const code = text.charCodeAt(i);

    if (gsm7) {
      const cost = gsm7Septets(code);
      if (cost === 0) {
        gsm7 = false;
      } else {
        septets += cost;
        if (gsm7Fill + cost > GSM7_PART) {
          gsm7Parts++;
          gsm7Fill = cost;
        } else {
          gsm7Fill += cost;
        }
      }
    }

    if (latin1) {
      if (code > LATIN1_MAX) {
        latin1 = false;
      } else if (latin1Fill === LATIN1_PART) {
        latin1Parts++;
        latin1Fill = 1;
      } else {
        latin1Fill++;
      }
    }

    const width = isHighSurrogate(code) && i + 1 < length && isLowSurrogate(text.charCodeAt(i + 1)) ? 2 : 1;
    if (ucs2Fill + width > UCS2_PART) {
      ucs2Parts++;
      ucs2Fill = width;
    } else {
      ucs2Fill += width;
    }
    i += width - 1;
  }

  let best: SegmentInfo | undefined;
  if (gsm7) {
    best =
      septets <= GSM7_SINGLE
        ? { encoding: "GSM7", numSegments: 1, units: septets, perSegment: GSM7_SINGLE }
        : { encoding: "GSM7", numSegments: gsm7Parts, units: septets, perSegment: GSM7_PART };
    if (best.numSegments === 1) return best;
  }

  // Latin-1 octets and UCS-2 units both equal the UTF-16 length of the text.
  if (latin1) {
    const numSegments = length <= LATIN1_SINGLE ? 1 : latin1Parts;
    if (!best || numSegments < best.numSegments) {
      best = {
        encoding: "LATIN1",
        numSegments,
        units: length,
        perSegment: numSegments === 1 ? LATIN1_SINGLE : LATIN1_PART,
      };
    }
  }

  const ucs2Segments = length <= UCS2_SINGLE ? 1 : ucs2Parts;
  if (!best || ucs2Segments < best.numSegments) {
    best = {
      encoding: "UCS2",
      numSegments: ucs2Segments,
      units: length,
      perSegment: ucs2Segments === 1 ? UCS2_SINGLE : UCS2_PART,
    };
  }
  return best;
}
