/**
 * Reads a deliver_sm from its raw bytes (SMPP 3.4 §4.6.1; the same layout as submit_sm).
 *
 * The decision: the `smpp` package decodes short_message into a string with its own tables and loses bytes it
 * cannot map (an octet above 0x7F in data_coding 0 becomes a space), so the carrier reads the PDU as it came off
 * the wire (see tap-raw-pdus.ts) and decodes the text itself.
 */

export const TLV = {
  RECEIPTED_MESSAGE_ID: 0x001e,
  SAR_MSG_REF_NUM: 0x020c,
  SAR_TOTAL_SEGMENTS: 0x020e,
  SAR_SEGMENT_SEQNUM: 0x020f,
  NETWORK_ERROR_CODE: 0x0423,
  MESSAGE_PAYLOAD: 0x0424,
  MESSAGE_STATE: 0x0427,
} as const;

export const ESM_CLASS_RECEIPT = 0x04;
const ESM_CLASS_UDHI = 0x40;
const HEADER_LENGTH = 16;

export interface DeliverSm {
  sequenceNumber: number;
  sourceAddr: string;
  destinationAddr: string;
  esmClass: number;
  dataCoding: number;
  shortMessage: Buffer;
  /** Optional parameters by tag, values as sent. */
  tlvs: ReadonlyMap<number, Buffer>;
}

/** Where a concatenated message's part belongs: from a UDH concatenation IE or the sar_* TLVs. */
export interface ConcatInfo {
  ref: number;
  total: number;
  seq: number;
}

class MalformedPdu extends Error {
  constructor(what: string) {
    super(`Malformed deliver_sm: ${what}`);
    this.name = "MalformedPdu";
  }
}

export function isMalformedPdu(error: unknown): boolean {
  return error instanceof MalformedPdu;
}

/** Parses a whole deliver_sm PDU, header included. Throws when the bytes do not hold one. */
export function parseDeliverSm(pdu: Buffer): DeliverSm {
  if (pdu.length < HEADER_LENGTH || pdu.readUInt32BE(0) !== pdu.length) throw new MalformedPdu("bad command_length");
  let offset = HEADER_LENGTH;

  const octet = (field: string): number => {
    if (offset >= pdu.length) throw new MalformedPdu(`ends before ${field}`);
    return pdu[offset++]!;
  };
  const cString = (field: string): string => {
    const end = pdu.indexOf(0, offset);
    if (end < 0) throw new MalformedPdu(`${field} has no terminating NUL`);
    const value = pdu.toString("latin1", offset, end);
    offset = end + 1;
    return value;
  };

  cString("service_type");
  octet("source_addr_ton");
  octet("source_addr_npi");
  const sourceAddr = cString("source_addr");
  octet("dest_addr_ton");
  octet("dest_addr_npi");
  const destinationAddr = cString("destination_addr");
  const esmClass = octet("esm_class");
  octet("protocol_id");
  octet("priority_flag");
  cString("schedule_delivery_time");
  cString("validity_period");
  octet("registered_delivery");
  octet("replace_if_present_flag");
  const dataCoding = octet("data_coding");
  octet("sm_default_msg_id");
  const smLength = octet("sm_length");
  if (offset + smLength > pdu.length) throw new MalformedPdu("short_message runs past the PDU");
  const shortMessage = pdu.subarray(offset, offset + smLength);
  offset += smLength;

  const tlvs = new Map<number, Buffer>();
  while (offset + 4 <= pdu.length) {
    const tag = pdu.readUInt16BE(offset);
    const length = pdu.readUInt16BE(offset + 2);
    offset += 4;
    if (offset + length > pdu.length) throw new MalformedPdu(`TLV 0x${tag.toString(16)} runs past the PDU`);
    tlvs.set(tag, pdu.subarray(offset, offset + length));
    offset += length;
  }

  return {
    sequenceNumber: pdu.readUInt32BE(12),
    sourceAddr,
    destinationAddr,
    esmClass,
    dataCoding,
    shortMessage,
    tlvs,
  };
}

/** The user data (short_message, or message_payload when short_message is empty) split into UDH and text bytes. */
export function userDataOf(deliver: DeliverSm): { udh?: Buffer; body: Buffer } {
  const data =
    deliver.shortMessage.length === 0
      ? (deliver.tlvs.get(TLV.MESSAGE_PAYLOAD) ?? deliver.shortMessage)
      : deliver.shortMessage;
  if (!(deliver.esmClass & ESM_CLASS_UDHI) || data.length === 0) return { body: data };
  const udhLength = data[0]! + 1;
  if (udhLength > data.length) throw new MalformedPdu("UDH longer than the user data");
  return { udh: data.subarray(1, udhLength), body: data.subarray(udhLength) };
}

/**
 * Concatenation of this part, if any: the UDH's 8-bit (IE 0x00) or 16-bit (IE 0x08) reference IE, else the
 * sar_msg_ref_num / sar_total_segments / sar_segment_seqnum TLVs.
 */
export function concatInfoOf(deliver: DeliverSm, udh: Buffer | undefined): ConcatInfo | undefined {
  if (udh) {
    for (let i = 0; i + 2 <= udh.length;) {
      const id = udh[i]!;
      const length = udh[i + 1]!;
      const data = udh.subarray(i + 2, i + 2 + length);
      if (id === 0x00 && data.length === 3) return { ref: data[0]!, total: data[1]!, seq: data[2]! };
      if (id === 0x08 && data.length === 4) return { ref: data.readUInt16BE(0), total: data[2]!, seq: data[3]! };
      i += 2 + length;
    }
  }
  const ref = deliver.tlvs.get(TLV.SAR_MSG_REF_NUM);
  const total = deliver.tlvs.get(TLV.SAR_TOTAL_SEGMENTS);
  const seq = deliver.tlvs.get(TLV.SAR_SEGMENT_SEQNUM);
  if (ref?.length === 2 && total?.length === 1 && seq?.length === 1) {
    return { ref: ref.readUInt16BE(0), total: total[0]!, seq: seq[0]! };
  }
  return undefined;
}
