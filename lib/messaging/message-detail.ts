import { attachmentsOf, type MediaAttachment } from "../media/media-records";
import { db } from "../db/client";
import type { Prisma } from "../db/generated/sqlite/client";
import { UUID_PATTERN } from "../db/ids";
import { sdrSelect, toSdrRecords, type SdrRecord } from "./get-sdrs";
import { listingTimestamp } from "./time-format";
import { isCancellable } from "./message-status";

// One message as the portal's message page shows it: every field a sender set or the service decided, and its SDR
// timeline. Never pacing or lease state.
const detailSelect = {
  id: true,
  accountId: true,
  direction: true,
  messageType: true,
  fromNumber: true,
  toNumber: true,
  body: true,
  media: true,
  numSegments: true,
  encoding: true,
  status: true,
  rejectReason: true,
  conversational: true,
  bulk: true,
  optLogic: true,
  optStatus: true,
  referenceId: true,
  userId: true,
  userType: true,
  conversationId: true,
  partsSubmitted: true,
  sendAt: true,
  validUntil: true,
  createdAt: true,
  sdrs: { orderBy: { id: "asc" }, select: sdrSelect },
} satisfies Prisma.MessageSelect;

export interface MessageDetail {
  messageId: string;
  accountId: string;
  direction: string;
  messageType: string;
  from: string;
  to: string;
  body: string;
  media: string[];
  /** The media as Parley keeps them (type, size, name; each the copy fitted for the route of an outbound MMS). */
  attachments: MediaAttachment[];
  numSegments: number;
  encoding: string;
  /** The listing status ("" for inbound). */
  status: string;
  rejectReason: string;
  conversational: boolean;
  bulk: boolean;
  optLogic: boolean;
  optStatus: string;
  referenceId: string;
  userId: string;
  userType: string;
  conversationId: string | null;
  /** Whether it can still be cancelled: scheduled, or queued with nothing handed to the carrier. */
  cancellable: boolean;
  /** A scheduled send's time, and the send's validity (ISO 8601), when it has them. */
  sendAt: string | null;
  validUntil: string | null;
  /** ISO 8601, and the listing form. */
  createdAt: string;
  timestamp: string;
}

/** The account's message with its SDRs, or null when the account has no such message (another account's included). */
export async function getMessageDetail(input: {
  accountId: string;
  messageId: string;
}): Promise<{ message: MessageDetail; sdrs: SdrRecord[] } | null> {
  const messageId = input.messageId.toLowerCase();
  if (!UUID_PATTERN.test(messageId)) return null;
  const row = await db().message.findFirst({
    where: { id: messageId, accountId: input.accountId },
    select: detailSelect,
  });
  if (!row) return null;
  const attachments = (await attachmentsOf([row.id])).get(row.id) ?? [];
  return {
    message: {
      messageId: row.id,
      accountId: row.accountId,
      direction: row.direction,
      messageType: row.messageType,
      from: row.fromNumber,
      to: row.toNumber,
      body: row.body,
      media: JSON.parse(row.media) as string[],
      attachments,
      numSegments: row.numSegments,
      encoding: row.encoding,
      status: row.status,
      rejectReason: row.rejectReason ?? "",
      conversational: row.conversational,
      bulk: row.bulk,
      optLogic: row.optLogic,
      optStatus: row.optStatus,
      referenceId: row.referenceId ?? "",
      userId: row.userId ?? "",
      userType: row.userType ?? "",
      conversationId: row.conversationId,
      cancellable: isCancellable(row.status, row.partsSubmitted),
      sendAt: row.sendAt?.toISOString() ?? null,
      validUntil: row.validUntil?.toISOString() ?? null,
      createdAt: row.createdAt.toISOString(),
      timestamp: listingTimestamp(row.createdAt),
    },
    sdrs: toSdrRecords(row.createdAt, row.sdrs),
  };
}
