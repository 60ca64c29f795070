import { ApiError } from "../api/api-error";
import { db } from "../db/client";
import { writeTransaction } from "../db/steps";
import { UUID_PATTERN } from "../db/ids";
import { everySegment } from "../delivery/due-messages";
import { recordTransitions } from "./record-transitions";
import { isCancellable, WAITING_STATUSES } from "./message-status";
import { notFound } from "./get-sdrs";

// Cancelling a message that has not left: POST /v3/messages/{messageId}/cancel and the portal's Cancel button. A
// message is cancellable while it waits (scheduled, or queued with no part handed to the carrier); the change is a
// compare-and-set against exactly that, so a worker taking the message at the same moment either sends it (and the
// cancel is refused) or finds it cancelled (and sends nothing).

export interface CancelResult {
  accountId: string;
  messageId: string;
  status: "cancelled";
}

/** Cancels the account's message, or throws: MessageNotFound (not the account's), MessageNotCancellable. */
export async function cancelMessage(input: {
  accountId: string;
  messageId: string;
  by: string;
}): Promise<CancelResult> {
  const { accountId } = input;
  const messageId = input.messageId.toLowerCase();
  if (!UUID_PATTERN.test(messageId)) throw notFound();
  // The account is part of the lookup: another account's message is as unknown as a missing one.
  const message = await db().message.findFirst({
    where: { id: messageId, accountId, direction: "outbound" },
    select: { id: true, accountId: true, referenceId: true, numSegments: true, status: true, partsSubmitted: true },
  });
  if (!message) throw notFound();
  const refuse = (status: string) =>
    new ApiError("MessageNotCancellable", {
      detail: `the message is ${status}${status === "sending" || status === "sent" ? ": it has already left" : ""}`,
    });
  if (!isCancellable(message.status, message.partsSubmitted)) throw refuse(message.status);
  const at = new Date();
  const unmoved = await writeTransaction(() =>
    recordTransitions({
      changes: [
        {
          ids: [message.id],
          set: { status: "cancelled", nextAttemptAt: null },
          onlyFrom: { status: WAITING_STATUSES, partsSubmitted: 0 },
        },
      ],
      sdrs: everySegment(message, "cancelled", `cancelled by ${input.by}`, at),
      at,
    }),
  );
  if (unmoved.size > 0) {
    // Taken by a worker (or cancelled) between the read and the change: say what it is now.
    const now = await db().message.findUnique({ where: { id: message.id }, select: { status: true } });
    throw refuse(now?.status ?? "gone");
  }
  return { accountId, messageId: message.id, status: "cancelled" };
}
