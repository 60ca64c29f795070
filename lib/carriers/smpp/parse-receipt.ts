/**
 * Delivery receipts: a deliver_sm with the receipt bit (0x04) in esm_class, its text in the de-facto format of
 * SMPP 3.4 Appendix B: `id:… sub:… dlvrd:… submit date:… done date:… stat:DELIVRD err:000 text:…`.
 *
 * The decisions:
 * - The receipted_message_id and message_state TLVs, when present, win over the text: they are the SMSC's own
 *   message id (the text's id is sometimes shortened or converted to decimal) and a defined state.
 * - stat DELIVRD → delivered, UNDELIV → undelivered, EXPIRED → expired, REJECTD → rejected, anything else
 *   final (DELETED, UNKNOWN…) → failed; message_state maps the same way. ENROUTE and ACCEPTD are progress reports,
 *   not outcomes: the carrier ignores them (isIntermediateReceipt).
 * - carrierCode is the text's err value; without one, the network_error_code TLV's error code (three digits).
 * - Keys are matched case-insensitively; `text:` runs to the end, so a message text holding "stat:" changes nothing.
 * - The receipt text is read as ASCII/Latin-1 even under data_coding 0: SMSCs write it in ASCII whatever they
 *   declare, and reading it as GSM 03.38 would turn an id's `_` into `§` and `@` into `¡`. Only UCS-2 is decoded.
 */
import type { DeliveryReceipt, ReceiptStatus } from "../carrier";
import { decodeText } from "./decode-text";
import { type DeliverSm, TLV } from "./parse-deliver-sm";

const DATA_CODING_UCS2 = 0x08;

/** The text of a receipt from its bytes (see above for why data_coding 0 is not read as GSM 03.38). */
export function receiptText(body: Buffer, dataCoding: number): string {
  return dataCoding === DATA_CODING_UCS2 ? decodeText(body, dataCoding) : body.toString("latin1");
}

const RECEIPT_KEY = /(?:^|\s)(id|sub|dlvrd|submit date|done date|stat|err|text):/gi;

/** The fields of a receipt text by lower-case key ("submit date", "stat", …), values trimmed. */
export function parseReceiptText(text: string): Map<string, string> {
  const keys = [...text.matchAll(RECEIPT_KEY)];
  const fields = new Map<string, string>();
  for (let i = 0; i < keys.length; i++) {
    const match = keys[i]!;
    const key = match[1]!.toLowerCase();
    const start = match.index + match[0].length;
    if (key === "text") {
      fields.set(key, text.slice(start));
      break;
    }
    const end = i + 1 < keys.length ? keys[i + 1]!.index : text.length;
    if (!fields.has(key)) fields.set(key, text.slice(start, end).trim());
  }
  return fields;
}

const STATUS_BY_STAT: Readonly<Record<string, ReceiptStatus>> = {
  DELIVRD: "delivered",
  UNDELIV: "undelivered",
  EXPIRED: "expired",
  REJECTD: "rejected",
};

// SMPP 3.4 §5.2.28 message_state values.
const STATUS_BY_MESSAGE_STATE: Readonly<Record<number, ReceiptStatus>> = {
  2: "delivered",
  3: "expired",
  5: "undelivered",
  8: "rejected",
};

// Intermediate states (SMPP 3.4 §5.2.28: ENROUTE 1, ACCEPTED 6): the message is on its way, not an outcome.
const INTERMEDIATE_STATS = new Set(["ENROUTE", "ACCEPTD"]);
const INTERMEDIATE_MESSAGE_STATES = new Set([1, 6]);

/** True for a receipt that reports progress (en route, accepted) rather than a final outcome. */
export function isIntermediateReceipt(deliver: DeliverSm, text: string): boolean {
  const stateTlv = deliver.tlvs.get(TLV.MESSAGE_STATE);
  if (stateTlv?.length === 1) return INTERMEDIATE_MESSAGE_STATES.has(stateTlv[0]!);
  const stat = parseReceiptText(text).get("stat");
  return stat !== undefined && INTERMEDIATE_STATS.has(stat.toUpperCase());
}

export function receiptStatusOfStat(stat: string): ReceiptStatus {
  return STATUS_BY_STAT[stat.toUpperCase()] ?? "failed";
}

/** The receipt a deliver_sm carries, or undefined when it names no message id. */
export function buildReceipt(deliver: DeliverSm, text: string, receivedAt: Date): DeliveryReceipt | undefined {
  const fields = parseReceiptText(text);

  const idTlv = deliver.tlvs.get(TLV.RECEIPTED_MESSAGE_ID);
  const tlvId = idTlv ? idTlv.toString("latin1").replace(/\0.*$/s, "") : "";
  const carrierMessageId = tlvId || fields.get("id") || "";
  if (!carrierMessageId) return undefined;

  const stateTlv = deliver.tlvs.get(TLV.MESSAGE_STATE);
  const stat = fields.get("stat");
  const status =
    stateTlv?.length === 1
      ? (STATUS_BY_MESSAGE_STATE[stateTlv[0]!] ?? "failed")
      : stat
        ? receiptStatusOfStat(stat)
        : "failed";

  const networkError = deliver.tlvs.get(TLV.NETWORK_ERROR_CODE);
  const carrierCode =
    fields.get("err") ?? (networkError?.length === 3 ? String(networkError.readUInt16BE(1)).padStart(3, "0") : "");

  return { carrierMessageId, status, carrierCode, statusMsg: text, receivedAt };
}
