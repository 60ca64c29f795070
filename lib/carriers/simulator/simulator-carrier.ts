import { randomUUID } from "node:crypto";
import type {
  Carrier,
  CarrierEvents,
  CarrierState,
  DeliveryReceipt,
  Departure,
  OutboundPart,
  ReceiptStatus,
  SubmitResult,
} from "../carrier";

// The built-in carrier: accepts every submit and reports a delivery receipt after a delay, with outcomes chosen by
// the destination's last four digits so that every path of the lifecycle can be tried on purpose:
//   …0000 undelivered   …0001 failed   …0002 no receipt (the message expires)   …0003 throttled once per part
//   (a temporary error, retried)   …0004 rejected at submit (permanent)   anything else delivered.
export const SIMULATOR_OUTCOMES = {
  "0000": "undelivered",
  "0001": "failed",
  "0002": "no receipt",
  "0003": "throttled once, then delivered",
  "0004": "rejected at submit",
} as const;

const RECEIPT_CODES: Record<ReceiptStatus, { stat: string; err: string }> = {
  delivered: { stat: "DELIVRD", err: "000" },
  undelivered: { stat: "UNDELIV", err: "001" },
  failed: { stat: "UNDELIV", err: "069" },
  expired: { stat: "EXPIRED", err: "003" },
  rejected: { stat: "REJECTD", err: "002" },
};

function smppDate(date: Date): string {
  const iso = date.toISOString();
  return iso.slice(2, 4) + iso.slice(5, 7) + iso.slice(8, 10) + iso.slice(11, 13) + iso.slice(14, 16);
}

/** The delivery note a carrier would send, in the usual SMPP receipt shape. */
export function receiptText(id: string, status: ReceiptStatus, submitted: Date, done: Date, text: string): string {
  const { stat, err } = RECEIPT_CODES[status];
  return `id:${id} sub:001 dlvrd:${status === "delivered" ? "001" : "000"} submit date:${smppDate(submitted)} done date:${smppDate(done)} stat:${stat} err:${err} text:${text.slice(0, 20)}`;
}

export function createSimulatorCarrier(options: { receiptDelayMs: number }): Carrier {
  let events: CarrierEvents | null = null;
  const createdAt = new Date();
  const throttledOnce = new Set<string>();
  const timers = new Set<NodeJS.Timeout>();

  return {
    name: "simulator",
    async start(handlers) {
      events = handlers;
    },
    async submit(part: OutboundPart, departure?: Departure): Promise<SubmitResult> {
      const waiting = departure?.leave();
      if (waiting) await waiting;
      departure?.left();
      const ending = part.to.slice(-4);
      const partKey = `${part.messageId}:${part.segmentNumber}`;
      if (ending === "0003" && !throttledOnce.has(partKey)) {
        throttledOnce.add(partKey);
        return { ok: false, temporary: true, code: "0x00000058", detail: "ESME_RTHROTTLED (simulated)" };
      }
      if (ending === "0004")
        return { ok: false, temporary: false, code: "0x0000000B", detail: "ESME_RINVDSTADR (simulated)" };
      const carrierMessageId = `sim-${randomUUID()}`;
      const submitted = new Date();
      if (ending !== "0002") {
        const status: ReceiptStatus = ending === "0000" ? "undelivered" : ending === "0001" ? "failed" : "delivered";
        const timer = setTimeout(() => {
          timers.delete(timer);
          const done = new Date();
          const receipt: DeliveryReceipt = {
            carrierMessageId,
            status,
            carrierCode: RECEIPT_CODES[status].err,
            statusMsg: receiptText(carrierMessageId, status, submitted, done, part.text),
            receivedAt: done,
          };
          void events?.onReceipt(receipt).catch(() => undefined);
        }, options.receiptDelayMs);
        timers.add(timer);
      }
      const note = part.media.length > 0 ? "MMS delivered by the simulator" : undefined;
      return { ok: true, carrierMessageId, note };
    },
    connectionState(): CarrierState {
      return { state: "connected", detail: "simulator", since: createdAt };
    },
    async stop() {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      events = null;
    },
  };
}
