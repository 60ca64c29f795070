import { countSegments, type SegmentInfo } from "@/lib/segments/count-segments";
import { gsm7Septets } from "@/lib/segments/gsm7";
import { smartEncode } from "@/lib/segments/smart-encoding";

export interface Counter extends SegmentInfo {
  characters: number;
  /** The first character that keeps the text out of GSM-7 (or out of Latin-1, for UCS-2). */
  culprit: string | null;
}

/** The composer's counter: the very segment code the API answers numSegments with, and why its alphabet. */
export function countForComposer(text: string): Counter {
  const info = countSegments(text);
  let culprit: string | null = null;
  if (info.encoding !== "GSM7") {
    for (const char of text) {
      const code = char.codePointAt(0)!;
      const outOfGsm = char.length > 1 || gsm7Septets(code) === 0;
      if (info.encoding === "UCS2" ? code > 0xff : outOfGsm) {
        culprit = char;
        break;
      }
    }
  }
  return { ...info, characters: [...text].length, culprit };
}

/**
 * What smart encoding would save on this text: the look-alike characters it would replace and the fixed text, when
 * that costs fewer segments or a cheaper alphabet; null when it would save nothing.
 */
export function lookAlikeFix(
  text: string,
  counter: SegmentInfo,
): { text: string; replaced: string[]; numSegments: number } | null {
  const fixed = smartEncode(text);
  if (fixed.replaced.length === 0) return null;
  const after = countSegments(fixed.text);
  if (after.numSegments >= counter.numSegments && after.encoding === counter.encoding) return null;
  return { text: fixed.text, replaced: fixed.replaced, numSegments: after.numSegments };
}

export function alphabetName(encoding: string): string {
  return encoding === "GSM7" ? "GSM-7" : encoding === "LATIN1" ? "Latin-1" : "UCS-2";
}
