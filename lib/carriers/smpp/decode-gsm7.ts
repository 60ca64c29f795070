/**
 * Decodes unpacked GSM 03.38 septets (one per byte, as SMPP carries data_coding 0) back to text: the inverse of
 * lib/segments/gsm7.ts encodeGsm7, over the same base and extension tables.
 *
 * The decisions, after 3GPP TS 23.038 §6.2.1.1: an escape followed by a septet the extension table does not define
 * shows that septet's base character; escape escape (reserved) shows a space; a trailing escape is dropped. A byte
 * above 0x7F cannot be a septet and shows as U+FFFD.
 */
import { GSM7_BASE_TABLE, GSM7_ESCAPE, GSM7_EXTENSION_TABLE } from "../../segments/gsm7";

const REPLACEMENT = "\uFFFD";

const extensionBySeptet: ReadonlyMap<number, string> = new Map(
  [...GSM7_EXTENSION_TABLE].map(([char, septet]) => [septet, char]),
);

export function decodeGsm7(septets: Uint8Array): string {
  let text = "";
  for (let i = 0; i < septets.length; i++) {
    const septet = septets[i]!;
    if (septet > 0x7f) {
      text += REPLACEMENT;
    } else if (septet !== GSM7_ESCAPE) {
      text += GSM7_BASE_TABLE[septet]!;
    } else if (i + 1 < septets.length) {
      const next = septets[++i]!;
      if (next > 0x7f) text += REPLACEMENT;
      else if (next === GSM7_ESCAPE) text += " ";
      else text += extensionBySeptet.get(next) ?? GSM7_BASE_TABLE[next]!;
    }
  }
  return text;
}
