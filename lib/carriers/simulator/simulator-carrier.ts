import { randomBytes, randomUUID } from "node:crypto";
import { hostname } from "node:os";
import { logger } from "../../log";
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
import { claimUnheld, deleteOwed, releaseClaims, renewClaims, storeOwed, type OwedReceipt } from "./owed-receipts";
import { fetchMmsMedia } from "./fetch-mms";

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

/**
 * Collects the items added within one turn of the event loop (and while a write is running) into one write; each
 * add settles when the write holding its item does.
 */
function batched<T>(write: (items: T[]) => Promise<void>): { add(item: T): Promise<void>; idle(): Promise<void> } {
  let queue: { item: T; resolve: () => void; reject: (error: unknown) => void }[] = [];
  let active = false;
  let running: Promise<void> = Promise.resolve();
  const run = async () => {
    try {
      while (queue.length > 0) {
        await new Promise((resolve) => setImmediate(resolve));
        const batch = queue;
        queue = [];
        try {
          await write(batch.map((b) => b.item));
          for (const b of batch) b.resolve();
        } catch (error) {
          for (const b of batch) b.reject(error);
        }
      }
    } finally {
      active = false;
    }
  };
  return {
    add(item) {
      return new Promise<void>((resolve, reject) => {
        queue.push({ item, resolve, reject });
        if (active) return;
        active = true;
        running = run();
      });
    },
    idle: () => running,
  };
}

/** Waits after a receipt's recording failed: 1 s, 2 s, 4 s … up to 30 s. */
const redeliveryDelay = (failures: number) => Math.min(30_000, 1000 * 2 ** Math.min(failures - 1, 5));

export interface SimulatorOptions {
  /** How long after a submit its receipt is delivered. */
  receiptDelayMs: number;
  /**
   * The claim on the receipts this simulator owes, renewed while it runs: a worker that dies stops renewing, and
   * its receipts are delivered by the next simulator once the claim runs out. Default 30 s.
   */
  claimMs?: number;
}

export function createSimulatorCarrier(options: SimulatorOptions): Carrier {
  const claimMs = options.claimMs ?? 30_000;
  const log = logger().child({ component: "simulator" });
  const id = `simulator:${hostname()}:${process.pid}:${randomBytes(3).toString("hex")}`;
  let events: CarrierEvents | null = null;
  let stopping = false;
  const createdAt = new Date();
  const throttledOnce = new Set<string>();
  /** The receipts this simulator holds, each with its timer until it is handed to the worker. */
  const held = new Map<string, { owed: OwedReceipt; timer: NodeJS.Timeout | null; failures: number }>();
  const delivering = new Set<Promise<void>>();
  // An SMSC stores a message before it acknowledges the submit: the owed receipt is committed before submit answers.
  const store = batched((receipts: OwedReceipt[]) => storeOwed(receipts, id, new Date(Date.now() + claimMs)));
  const forget = batched(deleteOwed);
  let maintenance: NodeJS.Timeout | null = null;
  let maintaining: Promise<void> | null = null;
  let lastRenewal = Date.now();

  function schedule(owed: OwedReceipt, delayMs = owed.dueAt.getTime() - Date.now()): void {
    // Once stopping, what is not handed over yet stays in the table and is given back.
    if (stopping) return;
    const entry = held.get(owed.carrierMessageId) ?? { owed, timer: null, failures: 0 };
    held.set(owed.carrierMessageId, entry);
    if (entry.timer) clearTimeout(entry.timer);
    entry.timer = setTimeout(() => deliver(owed.carrierMessageId), Math.max(0, delayMs));
  }

  function deliver(carrierMessageId: string): void {
    const entry = held.get(carrierMessageId);
    if (!entry || !events || stopping) return;
    entry.timer = null;
    const { owed } = entry;
    const done = new Date();
    const receipt: DeliveryReceipt = {
      carrierMessageId,
      status: owed.status,
      carrierCode: RECEIPT_CODES[owed.status].err,
      statusMsg: receiptText(carrierMessageId, owed.status, owed.submittedAt, done, owed.text),
      receivedAt: done,
    };
    // The worker settles the promise once the receipt is committed (as it would answer deliver_sm): only then is it
    // forgotten here; a receipt it could not record is delivered again later.
    const handed = events.onReceipt(receipt).then(
      () => {
        held.delete(carrierMessageId);
        return forget.add(carrierMessageId).catch((error: unknown) => {
          // Left in the table, it is delivered once more after a restart and recorded as a repeat.
          log.warn({ err: error, carrierMessageId }, "could not delete a delivered simulator receipt");
        });
      },
      (error: unknown) => {
        entry.failures += 1;
        log.warn({ err: error, carrierMessageId, failures: entry.failures }, "receipt not recorded; delivering again");
        schedule(owed, redeliveryDelay(entry.failures));
      },
    );
    delivering.add(handed);
    void handed.finally(() => delivering.delete(handed));
  }

  // Renews the claim on what this simulator holds, and takes the receipts nobody holds any more.
  async function maintain(): Promise<void> {
    const now = Date.now();
    if (held.size > 0 && now - lastRenewal >= claimMs / 3) {
      await renewClaims(id, new Date(now + claimMs));
      lastRenewal = now;
    }
    const taken = await claimUnheld(id, new Date(now + claimMs), new Date(now), 2_000);
    for (const owed of taken) if (!held.has(owed.carrierMessageId)) schedule(owed);
    if (taken.length > 0) log.info({ receipts: taken.length }, "took over receipts owed by a simulator gone");
  }

  function maintainSoon(): void {
    if (maintaining || stopping) return;
    maintaining = maintain()
      .catch((error: unknown) => log.warn({ err: error }, "simulator receipt upkeep failed"))
      .finally(() => (maintaining = null));
  }

  return {
    name: "simulator",
    async start(handlers) {
      events = handlers;
      stopping = false;
      maintainSoon();
      maintenance = setInterval(maintainSoon, Math.min(1000, claimMs / 3));
      maintenance.unref();
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
      // An MMS centre fetches the media first; a medium it cannot fetch fails the message.
      let mms: string | undefined;
      if (part.media.length > 0 && part.segmentNumber === 1) {
        const fetched = await fetchMmsMedia(part.media);
        if (!fetched.ok) return { ok: false, temporary: false, code: "MMS", detail: fetched.detail, final: "failed" };
        mms = `MMS delivered by the simulator (${fetched.words})`;
      }
      const carrierMessageId = `sim-${randomUUID()}`;
      if (ending !== "0002") {
        const submittedAt = new Date();
        const owed: OwedReceipt = {
          carrierMessageId,
          status: ending === "0000" ? "undelivered" : ending === "0001" ? "failed" : "delivered",
          text: part.text.slice(0, 20),
          submittedAt,
          dueAt: new Date(submittedAt.getTime() + options.receiptDelayMs),
        };
        try {
          await store.add(owed);
        } catch (error) {
          log.warn({ err: error }, "could not store the receipt owed for a submit");
          return { ok: false, temporary: true, code: "0x00000008", detail: "ESME_RSYSERR (simulated: store failed)" };
        }
        schedule(owed);
      }
      return { ok: true, carrierMessageId, note: mms };
    },
    connectionState(): CarrierState {
      return { state: "connected", detail: "simulator", since: createdAt };
    },
    /**
     * Lets the receipts being recorded finish (for a few seconds at most) and gives the others back, so that the
     * next simulator delivers them when due without waiting for the claim to run out.
     */
    async stop() {
      stopping = true;
      if (maintenance) clearInterval(maintenance);
      maintenance = null;
      await maintaining;
      for (const entry of held.values()) if (entry.timer) clearTimeout(entry.timer);
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.allSettled([...delivering]),
        new Promise((resolve) => (timer = setTimeout(resolve, 5_000))),
      ]);
      clearTimeout(timer);
      await Promise.allSettled([store.idle(), forget.idle()]);
      await releaseClaims(id).catch((error: unknown) =>
        log.warn({ err: error }, "could not give back the simulator's receipts; they are delivered after the claim"),
      );
      held.clear();
      events = null;
    },
  };
}
