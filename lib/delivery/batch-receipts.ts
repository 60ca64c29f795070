import type { Logger } from "pino";
import type { DeliveryReceipt } from "../carriers/carrier";
import type { RoundResult } from "./pace-departures";
import { recordReceipts } from "./record-receipt";

interface PendingReceipt {
  receipt: DeliveryReceipt;
  attempt: number;
  resolve: () => void;
  reject: (e: unknown) => void;
}

/**
 * The most receipts one transaction records: 2,000 held SQLite's write lock for 40–50 ms, which the send path waited
 * for; 250 hold it for about 10.
 */
const RECEIPT_BATCH = 250;

/**
 * Receipts are recorded in batches: those arriving while one batch is written form the next. The carrier's
 * acknowledgement (deliver_sm_resp) waits for the commit, so a receipt is never lost. A receipt may overtake the
 * commit of its own submit: one for a part this worker submitted waits for that commit; another unknown one
 * (a part another worker submitted, when the carrier hands receipts to any session) is tried again a few times.
 */
export class ReceiptBatches {
  private receipts: PendingReceipt[] = [];
  private recordingReceipts = false;
  /** Carrier ids of parts this worker submitted whose round is not yet recorded, and receipts waiting for them. */
  private submittedNotRecorded = new Set<string>();
  private receiptsAwaitingRecord = new Map<string, PendingReceipt[]>();

  constructor(private readonly log: Logger) {}

  /** Resolves once the receipt is written (or given up on as unknown); the carrier acknowledges it then. */
  handleReceipt(receipt: DeliveryReceipt, attempt = 0): Promise<void> {
    return new Promise((resolve, reject) => {
      this.receipts.push({ receipt, attempt, resolve, reject });
      if (!this.recordingReceipts) void this.flushReceipts();
    });
  }

  /** A part the carrier took, its round not yet recorded: a receipt for it waits for that record. */
  submitted(carrierMessageId: string): void {
    this.submittedNotRecorded.add(carrierMessageId);
  }

  /**
   * A round's answers written, or given up on. Receipts that overtook this round's record are taken up again now
   * that their parts are written (or, if writing failed, go back to the ordinary tries for unknown parts).
   */
  roundRecorded(results: RoundResult[]): void {
    for (const { result } of results) {
      if (!result?.ok) continue;
      this.submittedNotRecorded.delete(result.carrierMessageId);
      const waiting = this.receiptsAwaitingRecord.get(result.carrierMessageId);
      if (!waiting) continue;
      this.receiptsAwaitingRecord.delete(result.carrierMessageId);
      this.receipts.push(...waiting);
    }
    if (this.receipts.length > 0 && !this.recordingReceipts) void this.flushReceipts();
  }

  private async flushReceipts(): Promise<void> {
    this.recordingReceipts = true;
    try {
      while (this.receipts.length > 0) {
        // One turn of the event loop first, so that receipts arriving together form one batch (on SQLite a whole
        // transaction can otherwise complete before the next receipt is even read off the socket).
        await new Promise((resolve) => setImmediate(resolve));
        const batch = this.receipts.splice(0, RECEIPT_BATCH);
        try {
          const outcome = await recordReceipts(batch.map((b) => b.receipt));
          const unknown = new Set(outcome.unknown);
          for (const item of batch) {
            if (!unknown.has(item.receipt)) {
              item.resolve();
            } else if (this.submittedNotRecorded.has(item.receipt.carrierMessageId)) {
              // Its part left in a round still being written: it is taken up when that write is done, not dropped.
              const id = item.receipt.carrierMessageId;
              this.receiptsAwaitingRecord.set(id, [...(this.receiptsAwaitingRecord.get(id) ?? []), item]);
            } else if (item.attempt >= 9) {
              this.log.warn({ carrierMessageId: item.receipt.carrierMessageId }, "receipt for an unknown message part");
              item.resolve();
            } else {
              setTimeout(
                () => this.handleReceipt(item.receipt, item.attempt + 1).then(item.resolve, item.reject),
                200 * (item.attempt + 1),
              );
            }
          }
        } catch (error) {
          for (const item of batch) item.reject(error);
        }
      }
    } finally {
      this.recordingReceipts = false;
    }
  }
}
