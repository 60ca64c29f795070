import { parseReceiptText } from "../carriers/smpp/parse-receipt";

// The two event bodies exactly as the seed's Events section lists them: TNs without '+', ISO 8601 timestamps,
// apiVersion v3. The body is the payload itself (no envelope); the kind travels in the `parley-event` header.

export type WebhookEventKind = "message-received" | "message-status" | "limit-warning";

/**
 * Parley's own event (not the seed's): a daily limit of the account reached 80 % (lib/guard/daily-limits.ts), sent
 * once per limit and day. `messageId` is the message whose send crossed the mark.
 */
export interface LimitWarningPayload {
  apiVersion: "v3";
  accountId: string;
  messageId: string;
  timestamp: string;
  limit: "messages" | "segments";
  used: number;
  max: number;
  percent: number;
  /** The account's day (YYYY-MM-DD in its time zone) and when its limits start again. */
  day: string;
  timeZone: string;
  resetsAt: string;
}

export interface InboundPayload {
  apiVersion: "v3";
  messageId: string;
  timestamp: string;
  from: string;
  to: string;
  accountId: string;
  body: string;
  media: string[];
  messageType: string;
  numSegments: number;
}

export interface DeliveryStatusPayload {
  apiVersion: "v3";
  messageId: string;
  referenceId: string;
  timestamp: string;
  segmentNumber: number;
  from: string;
  to: string;
  accountId: string;
  status: string;
  statusMsg: string;
  numSegments: number;
  bulk: boolean;
}

const digits = (tn: string) => tn.replace(/^\+/, "");

export function inboundPayload(message: {
  id: string;
  accountId: string;
  fromNumber: string;
  toNumber: string;
  body: string;
  media: string;
  messageType: string;
  numSegments: number;
  createdAt: Date;
}): InboundPayload {
  return {
    apiVersion: "v3",
    messageId: message.id,
    timestamp: message.createdAt.toISOString(),
    from: digits(message.fromNumber),
    to: digits(message.toNumber),
    accountId: message.accountId,
    body: message.body,
    media: JSON.parse(message.media) as string[],
    messageType: message.messageType,
    numSegments: message.numSegments,
  };
}

export function deliveryStatusPayload(
  message: {
    id: string;
    accountId: string;
    fromNumber: string;
    toNumber: string;
    referenceId: string | null;
    numSegments: number;
    bulk: boolean;
  },
  outcome: { segmentNumber: number; status: string; statusMsg: string; at: Date },
): DeliveryStatusPayload {
  return {
    apiVersion: "v3",
    messageId: message.id,
    referenceId: message.referenceId ?? "",
    timestamp: outcome.at.toISOString(),
    segmentNumber: outcome.segmentNumber,
    from: digits(message.fromNumber),
    to: digits(message.toNumber),
    accountId: message.accountId,
    status: outcome.status,
    statusMsg: outcome.statusMsg,
    numSegments: message.numSegments,
    bulk: message.bulk,
  };
}

// The SMPP `stat:` word of each outcome, for notes that did not come from a carrier's receipt.
const STAT: Record<string, string> = {
  delivered: "DELIVRD",
  undelivered: "UNDELIV",
  failed: "UNDELIV",
  expired: "EXPIRED",
  rejected: "REJECTD",
  cancelled: "DELETED",
};

// The receipt fields that make the note; `text:` (the first characters of the customer's own message) is left out.
const NOTE_FIELDS = ["id", "sub", "dlvrd", "submit date", "done date", "stat"];

/**
 * The seed: statusMsg is "a text shaped like a delivery note followed by a carrier code". Here that is always the
 * carrier's delivery note in the SMPP receipt form (`id:… sub:… dlvrd:… submit date:… done date:… stat:…`) then
 * `err:<carrier code>`. Outcomes no receipt reported (a submit the carrier refused, a receipt that never came) get
 * a note of the same form built from what is known: `stat:REJECTD <the carrier's answer> err:0x0000000B`,
 * `stat:EXPIRED no delivery receipt within the validity period err:000`.
 */
export function formatStatusMsg(status: string, note: string, carrierCode: string): string {
  const fields = parseReceiptText(note);
  if (fields.has("stat")) {
    const parts = NOTE_FIELDS.filter((k) => fields.has(k)).map((k) => `${k}:${fields.get(k)}`);
    const code = carrierCode || fields.get("err") || "000";
    return `${parts.join(" ")} err:${code}`;
  }
  const stat = STAT[status] ?? status.toUpperCase();
  return `stat:${stat}${note.trim() ? ` ${note.trim()}` : ""} err:${carrierCode || "000"}`;
}
