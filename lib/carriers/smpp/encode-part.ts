/**
 * Turns one outbound part into the submit_sm fields that carry its text.
 *
 * The decisions:
 * - data_coding per alphabet: GSM7 → 0 with unpacked septets (one per byte, escape septet before an extension
 *   character, as encodeGsm7 gives them), LATIN1 → 3 with ISO-8859-1 octets, UCS2 → 8 with UTF-16BE.
 * - A part of a concatenated message (totalSegments > 1) starts with the six-octet UDH `05 00 03 ref total seq`
 *   (8-bit reference concatenation IE) and sets esm_class 0x40 (UDHI); a single part has no UDH and esm_class 0.
 * - SMPP has no MMS: the media URLs are appended to the text of the last part, one per line, and the result says
 *   so. If the links make the text outgrow one SMS, it goes in the message_payload TLV (the SMSC segments it); if
 *   they hold a character the part's alphabet lacks, the next alphabet in countSegments' order that has it is used.
 */
import type { OutboundPart } from "../carrier";
import type { Encoding } from "../../segments/count-segments";
import { encodeGsm7, isGsm7 } from "../../segments/gsm7";

export const DATA_CODING: Readonly<Record<Encoding, number>> = { GSM7: 0x00, LATIN1: 0x03, UCS2: 0x08 };
export const ESM_CLASS_UDHI = 0x40;
export const MMS_NOTE = "MMS sent as SMS with media links (SMPP has no MMS)";

/** Octets one short_message may hold without a UDH: 160 unpacked septets, or 140 octets. */
const SINGLE_CAPACITY: Readonly<Record<Encoding, number>> = { GSM7: 160, LATIN1: 140, UCS2: 140 };
/** sm_length is one octet. */
const SHORT_MESSAGE_MAX = 254;
const LATIN1_MAX = 0xff;

export interface EncodedPart {
  dataCoding: number;
  esmClass: number;
  /** UDH (if any) followed by the encoded text; empty when the text travels in messagePayload. */
  shortMessage: Buffer;
  messagePayload?: Buffer;
  note?: string;
}

function isLatin1(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > LATIN1_MAX) return false;
  return true;
}

function canEncode(text: string, encoding: Encoding): boolean {
  if (encoding === "GSM7") return isGsm7(text);
  if (encoding === "LATIN1") return isLatin1(text);
  return true;
}

/** The text in the given alphabet; throws a RangeError when a character is not in it. */
export function encodeText(text: string, encoding: Encoding): Buffer {
  switch (encoding) {
    case "GSM7":
      return Buffer.from(encodeGsm7(text));
    case "LATIN1":
      if (!isLatin1(text)) throw new RangeError("Text has a character outside ISO-8859-1");
      return Buffer.from(text, "latin1");
    case "UCS2":
      return Buffer.from(text, "utf16le").swap16();
  }
}

export function encodePart(part: OutboundPart): EncodedPart {
  const { segmentNumber, totalSegments } = part;
  if (!Number.isInteger(totalSegments) || totalSegments < 1 || totalSegments > 255) {
    throw new RangeError(`totalSegments must be 1–255, got ${totalSegments}`);
  }
  if (!Number.isInteger(segmentNumber) || segmentNumber < 1 || segmentNumber > totalSegments) {
    throw new RangeError(`segmentNumber must be 1–${totalSegments}, got ${segmentNumber}`);
  }

  const withLinks = part.media.length > 0 && segmentNumber === totalSegments;
  const text = withLinks ? [part.text, ...part.media].filter((line) => line !== "").join("\n") : part.text;
  const encoding = canEncode(text, part.encoding)
    ? part.encoding
    : (["GSM7", "LATIN1", "UCS2"] as const).find((candidate) => canEncode(text, candidate))!;
  const body = encodeText(text, encoding);
  const note = part.media.length > 0 ? MMS_NOTE : undefined;
  const dataCoding = DATA_CODING[encoding];

  if (totalSegments > 1) {
    const udh = Buffer.from([0x05, 0x00, 0x03, part.concatReference & 0xff, totalSegments, segmentNumber]);
    const withUdh = Buffer.concat([udh, body]);
    if (withUdh.length > SHORT_MESSAGE_MAX) {
      return { dataCoding, esmClass: ESM_CLASS_UDHI, shortMessage: Buffer.alloc(0), messagePayload: withUdh, note };
    }
    return { dataCoding, esmClass: ESM_CLASS_UDHI, shortMessage: withUdh, note };
  }
  if (body.length > SINGLE_CAPACITY[encoding]) {
    return { dataCoding, esmClass: 0, shortMessage: Buffer.alloc(0), messagePayload: body, note };
  }
  return { dataCoding, esmClass: 0, shortMessage: body, note };
}
