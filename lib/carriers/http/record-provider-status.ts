import type { DeliveryReceipt } from "../carrier";
import { db } from "../../db/client";
import { recordReceipts } from "../../delivery/record-receipt";
import type { StatusUpdate } from "./provider";

// A provider's status callback recorded as receipts. A provider answers for a whole message (it took the whole
// text in one request); Parley's message may count several parts, recorded as sent with it (http-carrier.ts), so one
// final status answers every part. A callback may overtake the worker's record of the send, or of the message's
// later parts (they take their paced slots after part 1 left): it waits for them, a bounded while.

const POLL_MS = 250;

export interface StatusOutcome {
  recorded: number;
  duplicates: number;
  unknown: number;
}

interface MessageParts {
  messageId: string;
  /** Every part's carrier id once all are recorded (null: parts are still to be recorded). */
  carrierIds: string[] | null;
}

/** The message a provider's id names, if it is the account's, with its parts' ids once all of them are written. */
async function partsOf(accountId: string, providerMessageId: string): Promise<MessageParts | null> {
  const part = await db().messagePart.findUnique({
    where: { carrierMessageId: providerMessageId },
    select: {
      messageId: true,
      message: { select: { accountId: true, numSegments: true, partsSubmitted: true } },
    },
  });
  if (!part || part.message.accountId !== accountId) return null;
  if (part.message.partsSubmitted < part.message.numSegments) return { messageId: part.messageId, carrierIds: null };
  const parts = await db().messagePart.findMany({
    where: { messageId: part.messageId },
    select: { carrierMessageId: true },
  });
  return { messageId: part.messageId, carrierIds: parts.map((p) => p.carrierMessageId) };
}

/**
 * Records the final statuses among `updates` for messages of `accountId` (a connection's callbacks answer only for
 * its own account). `waitMs` bounds how long a callback waits for a send it overtook.
 */
export async function recordProviderStatuses(
  accountId: string,
  type: string,
  updates: StatusUpdate[],
  waitMs = 15_000,
): Promise<StatusOutcome> {
  const outcome: StatusOutcome = { recorded: 0, duplicates: 0, unknown: 0 };
  for (const update of updates) {
    if (update.status === "sent") continue; // recorded as message_sent when the provider took the message
    const deadline = Date.now() + waitMs;
    let parts = await partsOf(accountId, update.providerMessageId);
    while ((!parts || parts.carrierIds === null) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      parts = await partsOf(accountId, update.providerMessageId);
    }
    if (!parts?.carrierIds) {
      outcome.unknown += 1;
      continue;
    }
    const words = update.code
      ? `${type} ${update.code}${update.meaning ? `: ${update.meaning}` : ""}`
      : `${type} ${update.status}`;
    const receipts: DeliveryReceipt[] = parts.carrierIds.map((carrierMessageId) => ({
      carrierMessageId,
      status: update.status as DeliveryReceipt["status"],
      carrierCode: update.code || "0",
      statusMsg: words,
      receivedAt: update.at,
    }));
    const result = await recordReceipts(receipts);
    if (result.recorded > 0) outcome.recorded += 1;
    else outcome.duplicates += 1;
  }
  return outcome;
}
