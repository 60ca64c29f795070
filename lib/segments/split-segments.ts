/**
 * Splits a text into the parts of a concatenated SMS (the SMPP carrier adds
 * the UDH to each part).
 *
 * The decision: the encoding and part capacity are those of countSegments, and
 * parts are packed greedily with the same rule, so parts.length always equals
 * countSegments(text).numSegments. An escape pair (GSM7 extension character) or
 * a UTF-16 surrogate pair never straddles two parts; a part may be left one
 * unit short instead. Joining the parts gives back the text.
 */
import { type Encoding, countSegments } from "./count-segments";
import { gsm7Septets } from "./gsm7";

function isSurrogatePairAt(text: string, index: number): boolean {
  const code = text.charCodeAt(index);
  if (code < 0xd800 || code > 0xdbff || index + 1 >= text.length) return false;
  const next = text.charCodeAt(index + 1);
  return next >= 0xdc00 && next <= 0xdfff;
}

export function splitSegments(text: string): { encoding: Encoding; parts: string[] } {
  const { encoding, numSegments, perSegment } = countSegments(text);
  if (numSegments === 1) return { encoding, parts: [text] };

  const parts: string[] = [];
  let start = 0;
  let fill = 0;
  for (let i = 0; i < text.length;) {
    // Code units taken by this character, and the capacity it uses.
    const width = encoding === "UCS2" && isSurrogatePairAt(text, i) ? 2 : 1;
    const cost = encoding === "GSM7" ? gsm7Septets(text.charCodeAt(i)) : width;
    if (fill + cost > perSegment) {
      parts.push(text.slice(start, i));
      start = i;
      fill = 0;
    }
    fill += cost;
    i += width;
  }
  parts.push(text.slice(start));
  return { encoding, parts };
}
