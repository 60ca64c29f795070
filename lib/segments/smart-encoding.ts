/**
 * Smart encoding: look-alike characters that word processors and phones put in text (curly quotes, long dashes,
 * non-breaking spaces, the ellipsis…) replaced with the GSM-7 characters they stand for, so that one of them does
 * not turn a one-segment text into a three-segment UCS-2 one. Only characters with a plain equivalent are
 * replaced; letters of other alphabets and emoji are left alone (they need UCS-2 whatever is done).
 */
import { isGsm7 } from "./gsm7";
import type { Encoding } from "./count-segments";

const SPACE = " ";
const LOOK_ALIKES: ReadonlyMap<string, string> = new Map([
  // Quotation marks.
  ["\u2018", "'"], // ‘
  ["\u2019", "'"], // ’
  ["\u201A", "'"], // ‚
  ["\u201B", "'"], // ‛
  ["\u2032", "'"], // ′
  ["\u2035", "'"], // ‵
  ["\u02BC", "'"], // ʼ
  ["\u02B9", "'"], // ʹ
  ["\u00B4", "'"], // ´
  ["\u0060", "'"], // `
  ["\u201C", '"'], // “
  ["\u201D", '"'], // ”
  ["\u201E", '"'], // „
  ["\u201F", '"'], // ‟
  ["\u2033", '"'], // ″
  ["\u00AB", '"'], // «
  ["\u00BB", '"'], // »
  ["\u2039", "<"], // ‹
  ["\u203A", ">"], // ›
  // Dashes and hyphens.
  ["\u2010", "-"], // ‐
  ["\u2011", "-"], // non-breaking hyphen
  ["\u2012", "-"], // ‒
  ["\u2013", "-"], // –
  ["\u2014", "-"], // —
  ["\u2015", "-"], // ―
  ["\u2212", "-"], // −
  ["\uFE63", "-"], // small hyphen-minus
  ["\uFF0D", "-"], // fullwidth hyphen-minus
  // Spaces.
  ["\u00A0", SPACE], // no-break space
  ["\u2000", SPACE],
  ["\u2001", SPACE],
  ["\u2002", SPACE],
  ["\u2003", SPACE],
  ["\u2004", SPACE],
  ["\u2005", SPACE],
  ["\u2006", SPACE],
  ["\u2007", SPACE],
  ["\u2008", SPACE],
  ["\u2009", SPACE],
  ["\u200A", SPACE],
  ["\u202F", SPACE], // narrow no-break space
  ["\u205F", SPACE],
  ["\u3000", SPACE],
  // Invisible characters: nothing stands for them.
  ["\u00AD", ""], // soft hyphen
  ["\u200B", ""], // zero-width space
  ["\u200C", ""],
  ["\u200D", ""],
  ["\u2060", ""], // word joiner
  ["\uFEFF", ""], // byte-order mark
  // Punctuation.
  ["\u2026", "..."], // …
  ["\u2022", "-"], // •
  ["\u00B7", "."], // ·
  ["\u2024", "."], // one dot leader
  ["\u2025", ".."], // two dot leader
  ["\u203C", "!!"], // ‼
  ["\u2047", "??"], // ⁇
  ["\u2044", "/"], // fraction slash
  ["\u2215", "/"], // division slash
  ["\u02C6", "^"], // modifier circumflex
  ["\u02DC", "~"], // small tilde
  ["\u2028", "\n"], // line separator
  ["\u2029", "\n"], // paragraph separator
]);

export interface SmartEncoded {
  text: string;
  /** The characters replaced, each once, in the order they first appear. */
  replaced: string[];
}

/** The text with its look-alike characters replaced (the text itself when it has none). */
export function smartEncode(text: string): SmartEncoded {
  let out = "";
  const replaced: string[] = [];
  for (const ch of text) {
    const plain = LOOK_ALIKES.get(ch);
    if (plain === undefined) {
      out += ch;
      continue;
    }
    out += plain;
    if (!replaced.includes(ch)) replaced.push(ch);
  }
  return { text: out, replaced };
}

/** The characters that keep the text out of GSM-7 (each once, whole, emoji included), none when it is GSM-7. */
export function culprits(text: string, encoding: Encoding): string[] {
  if (encoding === "GSM7") return [];
  const found: string[] = [];
  for (const ch of text) if (!isGsm7(ch) && !found.includes(ch)) found.push(ch);
  return found;
}

const INVISIBLE_NAMES: ReadonlyMap<string, string> = new Map([
  ["\u00A0", "no-break space"],
  ["\u202F", "narrow no-break space"],
  ["\u00AD", "soft hyphen"],
  ["\u200B", "zero-width space"],
  ["\u200C", "zero-width non-joiner"],
  ["\u200D", "zero-width joiner"],
  ["\u2060", "word joiner"],
  ["\uFEFF", "byte-order mark"],
  ["\u2028", "line separator"],
  ["\u2029", "paragraph separator"],
]);

/** A character as a person can read it in a sentence: itself, or the name of one that cannot be seen. */
export function readableChar(ch: string): string {
  const name = INVISIBLE_NAMES.get(ch);
  if (name) return name;
  return /\s/.test(ch) ? "special space" : ch;
}

/** Whether smart encoding would change the text. */
export function hasLookAlikes(text: string): boolean {
  for (const ch of text) if (LOOK_ALIKES.has(ch)) return true;
  return false;
}
