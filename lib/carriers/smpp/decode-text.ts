/**
 * Decodes the text of a deliver_sm by its data_coding.
 *
 * The decisions: 0 is the GSM 03.38 default alphabet, unpacked (SMPP 3.4 §5.2.19, "SMSC default alphabet"; the
 * alphabet Parley sends with 0); 8 is UCS-2, read as UTF-16BE so a surrogate pair comes through whole; 1 (IA5,
 * ASCII), 3 (Latin-1) and every 8-bit or unknown scheme are read as ISO-8859-1, which never fails. Values from the
 * GSM 03.38 DCS groups (general 0x10–0x1F, 0xF0–0xFF) are read by their alphabet bits.
 */
import { decodeGsm7 } from "./decode-gsm7";

type Alphabet = "GSM7" | "LATIN1" | "UCS2";

function alphabetOf(dataCoding: number): Alphabet {
  if (dataCoding === 0x00) return "GSM7";
  if (dataCoding === 0x08) return "UCS2";
  if (dataCoding >= 0x10 && dataCoding <= 0x1f) {
    const bits = (dataCoding >> 2) & 0x03;
    return bits === 0 ? "GSM7" : bits === 2 ? "UCS2" : "LATIN1";
  }
  if (dataCoding >= 0xf0) return dataCoding & 0x04 ? "LATIN1" : "GSM7";
  return "LATIN1";
}

export function decodeText(bytes: Buffer, dataCoding: number): string {
  switch (alphabetOf(dataCoding)) {
    case "GSM7":
      return decodeGsm7(bytes);
    case "UCS2": {
      // An odd trailing octet cannot be a code unit; it is dropped.
      const even = Buffer.from(bytes.subarray(0, bytes.length - (bytes.length % 2)));
      return even.swap16().toString("utf16le");
    }
    case "LATIN1":
      return bytes.toString("latin1");
  }
}
