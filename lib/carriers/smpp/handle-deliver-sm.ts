import type smpp from "smpp";
import type { CarrierEvents, InboundMessage } from "../carrier";
import type { Logger } from "../../log";
import { decodeText } from "./decode-text";
import {
  type DeliverSm,
  ESM_CLASS_RECEIPT,
  concatInfoOf,
  isMalformedPdu,
  parseDeliverSm,
  userDataOf,
} from "./parse-deliver-sm";
import { buildReceipt, isIntermediateReceipt, receiptText } from "./parse-receipt";
import { PartReassembler } from "./reassemble-parts";
import { ESME_RX_P_APPN, ESME_RX_T_APPN, statusCode } from "./smpp-status";

// What the SMSC delivers: a receipt goes to onReceipt, a message (its parts reassembled) to onInbound. Every
// deliver_sm is answered once its handler has finished: ESME_ROK, or ESME_RX_T_APPN when the handler threw (the SMSC
// retries later), or ESME_RX_P_APPN when the PDU cannot be parsed (a retry cannot help).

interface HeldPart {
  from: string;
  to: string;
  dataCoding: number;
  body: Buffer;
}

export class DeliverSmHandler {
  private readonly reassembler: PartReassembler<HeldPart>;

  constructor(
    private readonly events: () => CarrierEvents,
    reassemblyTimeoutMs: number,
    private readonly log: Logger,
  ) {
    this.reassembler = new PartReassembler<HeldPart>(reassemblyTimeoutMs, (parts, total) =>
      this.deliverIncomplete(parts, total),
    );
  }

  /** Handles the deliver_sm and answers it. */
  async answer(session: smpp.Session, pdu: smpp.PDU, raw: Buffer | undefined): Promise<void> {
    let status = 0;
    try {
      if (!raw) throw new Error("the raw bytes of this deliver_sm were not seen");
      await this.handle(parseDeliverSm(raw));
    } catch (error) {
      status = isMalformedPdu(error) ? ESME_RX_P_APPN : ESME_RX_T_APPN;
      this.log.error(
        { err: error, sequence: pdu.sequence_number, status: statusCode(status) },
        "smpp: deliver_sm not handled",
      );
    }
    session.send(pdu.response(status === 0 ? {} : { command_status: status }));
  }

  /** Hands over the concatenated messages still incomplete (on stop). */
  flush(): Promise<void> {
    return this.reassembler.flush();
  }

  private async handle(deliver: DeliverSm): Promise<void> {
    const events = this.events();
    const { udh, body } = userDataOf(deliver);
    const from = deliver.sourceAddr.replace(/^\+/, "");
    const to = deliver.destinationAddr.replace(/^\+/, "");

    if (deliver.esmClass & ESM_CLASS_RECEIPT) {
      const text = receiptText(body, deliver.dataCoding);
      if (isIntermediateReceipt(deliver, text)) {
        this.log.debug({ from, to }, "smpp: intermediate receipt (en route / accepted); the final one will follow");
        return;
      }
      const receipt = buildReceipt(deliver, text, new Date());
      if (!receipt) {
        this.log.warn({ from, to }, "smpp: delivery receipt without a message id; ignored");
        return;
      }
      await events.onReceipt(receipt);
      return;
    }

    const concat = concatInfoOf(deliver, udh);
    const held: HeldPart = { from, to, dataCoding: deliver.dataCoding, body };
    if (!concat || concat.total <= 1 || concat.seq < 1 || concat.seq > concat.total) {
      await events.onInbound(inboundOf([held]));
      return;
    }
    const key = `${from}|${to}|${concat.ref}`;
    const parts = this.reassembler.add(key, concat.total, concat.seq, held);
    if (!parts) return;
    try {
      await events.onInbound(inboundOf(parts));
      this.reassembler.done(key);
    } catch (error) {
      this.reassembler.retry(key, concat.seq);
      throw error;
    }
  }

  private async deliverIncomplete(parts: HeldPart[], total: number): Promise<void> {
    const message = inboundOf(parts);
    this.log.warn(
      { from: message.from, to: message.to, received: parts.length, total },
      "smpp: parts of a concatenated message missing; delivering what arrived",
    );
    try {
      await this.events().onInbound(message);
    } catch (error) {
      this.log.error({ err: error }, "smpp: inbound handler failed; will retry the incomplete message");
      throw error;
    }
  }
}

/** Joins parts' bytes before decoding, so an escape or surrogate pair split between parts survives. */
function inboundOf(parts: HeldPart[]): InboundMessage {
  const first = parts[0]!;
  const sameCoding = parts.every((part) => part.dataCoding === first.dataCoding);
  const text = sameCoding
    ? decodeText(Buffer.concat(parts.map((part) => part.body)), first.dataCoding)
    : parts.map((part) => decodeText(part.body, part.dataCoding)).join("");
  return { from: first.from, to: first.to, text, media: [], numSegments: parts.length, receivedAt: new Date() };
}
