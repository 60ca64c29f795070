import { countSegments, type SegmentInfo } from "@/lib/segments/count-segments";
import { gsm7Septets } from "@/lib/segments/gsm7";

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

export function alphabetName(encoding: string): string {
  return encoding === "GSM7" ? "GSM-7" : encoding === "LATIN1" ? "Latin-1" : "UCS-2";
}
