/**
 * GSM 03.38 default alphabet (3GPP TS 23.038) and its extension table.
 *
 * The decision: only the default alphabet and the default extension table are
 * used (no national language shift tables). The SMPP carrier sends unpacked
 * septets, one per byte, with data_coding 0.
 */

/** Septet that switches to the extension table for the following septet. */
export const GSM7_ESCAPE = 0x1b;

/**
 * The 128-entry base table: the character at index N is septet N.
 * Index 0x1B is the escape to the extension table, not a character; the NUL
 * placed there is never matched.
 */
export const GSM7_BASE_TABLE: string =
  "@£$¥èéùìòÇ\nØø\rÅå" + // 0x00-0x0F
  "Δ_ΦΓΛΩΠΨΣΘΞ\u0000ÆæßÉ" + // 0x10-0x1F (0x1B = escape)
  " !\"#¤%&'()*+,-./" + // 0x20-0x2F
  "0123456789:;<=>?" + // 0x30-0x3F
  "¡ABCDEFGHIJKLMNO" + // 0x40-0x4F
  "PQRSTUVWXYZÄÖÑÜ§" + // 0x50-0x5F
  "¿abcdefghijklmno" + // 0x60-0x6F
  "pqrstuvwxyzäöñüà"; // 0x70-0x7F

/**
 * Extension table: each character is sent as escape + this septet, so it costs
 * two septets. Form feed (0x0A) is the page break.
 */
export const GSM7_EXTENSION_TABLE: ReadonlyMap<string, number> = new Map([
  ["\f", 0x0a],
  ["^", 0x14],
  ["{", 0x28],
  ["}", 0x29],
  ["\\", 0x2f],
  ["[", 0x3c],
  ["~", 0x3d],
  ["]", 0x3e],
  ["|", 0x40],
  ["€", 0x65],
]);

const NOT_IN_ALPHABET = -1;
/** Marks an extension-table entry in the lookup; the low 7 bits are the septet. */
const EXTENDED = 0x100;

// Every GSM7 character is a single BMP code unit, the highest being € (U+20AC),
// so a flat array indexed by code unit gives a constant-time lookup.
const lookup: Int16Array = (() => {
  let highest = 0;
  for (const ch of GSM7_BASE_TABLE) highest = Math.max(highest, ch.charCodeAt(0));
  for (const ch of GSM7_EXTENSION_TABLE.keys()) highest = Math.max(highest, ch.charCodeAt(0));
  const table = new Int16Array(highest + 1).fill(NOT_IN_ALPHABET);
  for (let septet = 0; septet < GSM7_BASE_TABLE.length; septet++) {
    if (septet !== GSM7_ESCAPE) table[GSM7_BASE_TABLE.charCodeAt(septet)] = septet;
  }
  for (const [ch, septet] of GSM7_EXTENSION_TABLE) table[ch.charCodeAt(0)] = EXTENDED | septet;
  return table;
})();

/**
 * Septets needed for one UTF-16 code unit: 1 for the base table, 2 for the
 * extension table (escape + char), 0 when the character is not in GSM7.
 */
export function gsm7Septets(codeUnit: number): 0 | 1 | 2 {
  const entry = codeUnit < lookup.length ? lookup[codeUnit]! : NOT_IN_ALPHABET;
  if (entry === NOT_IN_ALPHABET) return 0;
  return entry & EXTENDED ? 2 : 1;
}

/** Whether every character of the text is in the GSM7 alphabet. */
export function isGsm7(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    if (gsm7Septets(text.charCodeAt(i)) === 0) return false;
  }
  return true;
}

/**
 * Unpacked septet values (one per byte) for the text, with the escape septet
 * before each extension-table character.
 * Throws a RangeError when a character is not in the GSM7 alphabet.
 */
export function encodeGsm7(text: string): number[] {
  const septets: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    const entry = code < lookup.length ? lookup[code]! : NOT_IN_ALPHABET;
    if (entry === NOT_IN_ALPHABET) {
      const char = String.fromCodePoint(text.codePointAt(i)!);
      throw new RangeError(`Character ${JSON.stringify(char)} at index ${i} is not in the GSM7 alphabet`);
    }
    if (entry & EXTENDED) septets.push(GSM7_ESCAPE, entry & 0x7f);
    else septets.push(entry);
  }
  return septets;
}
