import type { FinalStatus } from "../messaging/message-status";
import type { Encoding } from "../segments/count-segments";

// The one interface every carrier implements: submit parts, report delivery receipts per part, report inbound
// messages. The worker paces and records; a carrier only speaks its protocol.

/** One part (segment) of an outbound message, ready for the network. */
export interface OutboundPart {
  messageId: string;
  /** 1-based part number and the message's part count (1 for an unsplit message). */
  segmentNumber: number;
  totalSegments: number;
  /** Concatenation reference shared by all parts of one message (0–255). */
  concatReference: number;
  from: string; // E.164 digits, no '+'
  to: string; // E.164 digits, no '+'
  /** The text of this part only (already split without breaking escape or surrogate pairs). */
  text: string;
  /**
   * The whole message's text: carriers that take a message in one request (the HTTP providers, which split long
   * texts themselves) send it with part 1. Absent: the same as `text`.
   */
  messageText?: string;
  encoding: Encoding;
  /** MMS media URLs; carriers without MMS send them as links in the text and say so in `note`. */
  media: string[];
  /**
   * Until when (ms since the epoch) the message may still be delivered: the send's validitySeconds, passed on as
   * SMPP's validity_period and the HTTP providers' own fields. Absent or null: the carrier's default.
   */
  validUntil?: number | null;
}

export type SubmitResult =
  | { ok: true; carrierMessageId: string; note?: string }
  | {
      ok: false;
      temporary: boolean;
      code: string;
      detail: string;
      /** The carrier asked for this much time before another try (HTTP Retry-After): the retry waits at least that. */
      retryAfterMs?: number;
      /** What a permanent refusal makes of the message: rejected (the default, as SMPP's) or failed. */
      final?: "failed" | "rejected";
    };

/** A carrier's outcome of a part: every final status but `cancelled`, which only Parley gives (before anything left). */
export type ReceiptStatus = Exclude<FinalStatus, "cancelled">;

export interface DeliveryReceipt {
  carrierMessageId: string;
  status: ReceiptStatus;
  /** The carrier's error or status code, e.g. "000", and its delivery note text ("id:… stat:DELIVRD err:000 …"). */
  carrierCode: string;
  statusMsg: string;
  receivedAt: Date;
}

export interface InboundMessage {
  from: string; // E.164 digits
  to: string; // E.164 digits (one of an account's numbers)
  text: string;
  media: string[];
  numSegments: number;
  carrierMessageId?: string;
  receivedAt: Date;
}

export interface CarrierEvents {
  onReceipt(receipt: DeliveryReceipt): Promise<void>;
  onInbound(message: InboundMessage): Promise<void>;
}

/**
 * How the worker times a part's departure. `leave` is called right before the part is written (after any wait for
 * the carrier's own capacity, such as an SMPP window): the write waits for the promise it may return (pacing), and
 * does not happen if it throws (submit() then rejects with that error). `left` is called as soon as the write was
 * handed to the operating system: its reading of the clock is the part's departure, no earlier than the write
 * whatever held the process up between the two.
 */
export interface Departure {
  leave(): void | Promise<void>;
  left(): void;
}

/**
 * A carrier's link to the network as the portal's dashboard shows it: the simulator is always `connected`; an SMPP
 * carrier is `bound`, `connecting` (before its first bind) or `down` (not bound, reconnecting). `since` is when
 * the link entered the state (for `down`: when it was lost, however many reconnects failed since).
 */
export interface CarrierState {
  state: "connected" | "bound" | "connecting" | "down";
  detail: string;
  since: Date;
}

export interface Carrier {
  readonly name: string;
  start(events: CarrierEvents): Promise<void>;
  /**
   * Hands one part to the network. `departure`, when given, is told right before the part is written and right
   * after, so that pacing governs when parts really leave (see Departure).
   */
  submit(part: OutboundPart, departure?: Departure): Promise<SubmitResult>;
  stop(): Promise<void>;
  /** The link's state now (read every second by the worker's heartbeat); a carrier without one counts as connected. */
  connectionState?(): CarrierState;
  /** Submits waiting for the network's answer now, and the most that may (the metrics' window gauges). */
  submitWindow?(): { inUse: number; size: number };
}
