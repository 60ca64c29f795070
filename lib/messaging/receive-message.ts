import { db } from "../db/client";
import { uuidv4, uuidv7 } from "../db/ids";
import { logger } from "../log";
import type { InboundMessage } from "../carriers/carrier";
import { countSegments } from "../segments/count-segments";
import { applyOptKeyword, type OptOutcome } from "../opt/apply-opt-keyword";
import { recordTransitionsInTx, sdrRow } from "./record-transitions";
import { recordAudit } from "../audit/audit-trail";
import { partitionMedia } from "./check-media-url";
import { isDuplicateKeyError } from "./idempotency";
import { planInboundMedia, writeInboundMedia } from "../media/ingest-inbound";
import { fetchInboundMediaSoon } from "../media/fetch-inbound";
import { applyInbound } from "../conversations/assign-inbound";

export interface ReceiveOptions {
  /** Only for a number of this account (a provider connection's callbacks reach only its own account's numbers). */
  accountId?: string;
  /**
   * Kept once by its carrierMessageId: a provider that posts the same message again (a retried webhook, a replayed
   * callback) changes nothing the second time; answered null.
   */
  once?: boolean;
  /** The connection it came through: its credentials fetch the message's media from the provider. */
  carrierId?: string;
}

export interface ReceivedMessage {
  messageId: string;
  accountId: string;
  conversationId: string;
  /** What opt processing did: a keyword's effect and automatic reply, or a flag for staff. */
  opt: OptOutcome;
}

/**
 * A message from a phone to one of the accounts' numbers: stored (direction inbound, listing status ""), with a
 * `received` record, and added to the conversation of that number and that phone (every inbound message is).
 * A message to a number no account holds is logged and dropped: nobody could read it.
 * A media URL that is not a safe http(s) URL (check-media-url.ts) is dropped from the message, which is otherwise
 * kept and delivered: a phone's text must not be lost for an attachment, and a javascript: or data: link must never
 * reach the portal, a webhook receiver or the API's listings. The drop is logged and audited by scheme only.
 */
export async function receiveMessage(
  message: InboundMessage,
  options: ReceiveOptions = {},
): Promise<ReceivedMessage | null> {
  const client = db();
  const number = await client.phoneNumber.findUnique({ where: { number: message.to }, select: { accountId: true } });
  if (!number || (options.accountId !== undefined && number.accountId !== options.accountId)) {
    logger().warn({ to: message.to, from: message.from }, "inbound message for a number no account holds; dropped");
    return null;
  }
  const once = options.once && message.carrierMessageId ? message.carrierMessageId : undefined;
  if (once) {
    const seen = await client.message.findFirst({
      where: { accountId: number.accountId, carrierMessageId: once },
      select: { id: true },
    });
    if (seen) return null;
  }
  const at = message.receivedAt;
  const messageId = uuidv7(at.getTime());
  const { kept, dropped } = partitionMedia(message.media);
  // Parley's copies of the media: the message carries their URLs from the start (lib/media/ingest-inbound.ts).
  const mediaPlan = await planInboundMedia(number.accountId, kept);
  const media = mediaPlan.urls;
  if (mediaPlan.dropped > 0) dropped.push(...Array<string>(mediaPlan.dropped).fill("another account's medium"));
  if (dropped.length > 0) {
    logger().warn(
      { accountId: number.accountId, from: message.from, to: message.to, messageId, dropped },
      "inbound media URL dropped: not a safe http(s) URL",
    );
  }
  const segments = countSegments(message.text);
  // What runs once the transaction has committed: the live view's wake-up.
  const later = new Set<() => void>();
  const received = await client
    .$transaction(async (tx): Promise<ReceivedMessage | null> => {
      const conversation = await tx.conversation.upsert({
        where: {
          accountId_accountNumber_remoteNumber: {
            accountId: number.accountId,
            accountNumber: message.to,
            remoteNumber: message.from,
          },
        },
        create: {
          id: uuidv4(),
          accountId: number.accountId,
          accountNumber: message.to,
          remoteNumber: message.from,
          lastMessageAt: at,
          createdAt: at,
        },
        update: { lastMessageAt: at },
      });
      // Reopens it when resolved or snoozed, and assigns a new one round-robin when the account asks for it.
      await applyInbound(tx, later, { conversation, at });
      const stored = {
        id: messageId,
        accountId: number.accountId,
        direction: "inbound",
        messageType: media.length > 0 ? "mms" : "sms",
        fromNumber: message.from,
        toNumber: message.to,
        body: message.text,
        media: JSON.stringify(media),
        numSegments: media.length > 0 ? 1 : Math.max(message.numSegments, segments.numSegments),
        encoding: segments.encoding,
        status: "",
        conversational: true,
        conversationId: conversation.id,
        ...(once ? { carrierMessageId: once } : {}),
        createdAt: at,
        updatedAt: at,
      };
      await tx.message.create({ data: stored });
      const fetchDue = await writeInboundMedia(tx, {
        accountId: number.accountId,
        messageId,
        plan: mediaPlan,
        carrierId: options.carrierId ?? null,
        at,
      });
      if (fetchDue) later.add(fetchInboundMediaSoon);
      if (dropped.length > 0) {
        await recordAudit(
          {
            accountId: number.accountId,
            actor: "carrier",
            action: "media.dropped",
            target: `+${message.from}`,
            detail: `${dropped.join(", ")} (message ${messageId})`,
          },
          tx,
        );
      }
      // The `received` record and the inbound webhook event.
      const carrierId = message.carrierMessageId ? `carrier id ${message.carrierMessageId}` : "";
      const sdrs = [sdrRow(messageId, number.accountId, "received", at.getTime(), { statusDetails: carrierId })];
      await recordTransitionsInTx(tx, { sdrs, at, received: stored }, later);
      const opt = await applyOptKeyword(tx, later, {
        accountId: number.accountId,
        accountNumber: message.to,
        phone: message.from,
        text: message.text,
        messageId,
        conversationId: conversation.id,
        receivedAt: at,
      });
      return { messageId, accountId: number.accountId, conversationId: conversation.id, opt };
    })
    .catch((error: unknown) => {
      // The same message posted twice at once: the second insert meets the first one's carrier id.
      if (once && isDuplicateKeyError(error)) {
        later.clear();
        return null;
      }
      throw error;
    });
  for (const run of later) run();
  return received;
}
