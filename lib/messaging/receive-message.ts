import { db } from "../db/client";
import { uuidv4, uuidv7 } from "../db/ids";
import { logger } from "../log";
import type { InboundMessage } from "../carriers/carrier";
import { countSegments } from "../segments/count-segments";
import { applyOptKeyword, type OptOutcome } from "../opt/apply-opt-keyword";
import { enqueueInboundEvent } from "../webhooks/enqueue-events";
import { announceChanges } from "../realtime/announce-changes";

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
 */
export async function receiveMessage(message: InboundMessage): Promise<ReceivedMessage | null> {
  const client = db();
  const number = await client.phoneNumber.findUnique({ where: { number: message.to }, select: { accountId: true } });
  if (!number) {
    logger().warn({ to: message.to, from: message.from }, "inbound message for a number no account holds; dropped");
    return null;
  }
  const at = message.receivedAt;
  const messageId = uuidv7(at.getTime());
  const segments = countSegments(message.text);
  const received = await client.$transaction(async (tx) => {
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
    const stored = {
      id: messageId,
      accountId: number.accountId,
      direction: "inbound",
      messageType: message.media.length > 0 ? "mms" : "sms",
      fromNumber: message.from,
      toNumber: message.to,
      body: message.text,
      media: JSON.stringify(message.media),
      numSegments: message.media.length > 0 ? 1 : Math.max(message.numSegments, segments.numSegments),
      encoding: segments.encoding,
      status: "",
      conversational: true,
      conversationId: conversation.id,
      createdAt: at,
      updatedAt: at,
    };
    await tx.message.create({ data: stored });
    await tx.sdr.create({
      data: {
        messageId,
        accountId: number.accountId,
        status: "received",
        statusDetails: message.carrierMessageId ? `carrier id ${message.carrierMessageId}` : "",
        createdAt: at,
      },
    });
    await enqueueInboundEvent(tx, stored);
    const opt = await applyOptKeyword(tx, {
      accountId: number.accountId,
      accountNumber: message.to,
      phone: message.from,
      text: message.text,
      messageId,
      conversationId: conversation.id,
      receivedAt: at,
    });
    return { messageId, accountId: number.accountId, conversationId: conversation.id, opt };
  });
  announceChanges();
  return received;
}
