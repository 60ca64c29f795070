import { z } from "zod";
import { ApiError } from "../api/api-error";
import { assertAccount, type ApiPrincipal } from "../api/authenticate";
import { errorStatusUri } from "../api/envelope";
import { db } from "../db/client";
import type { Prisma } from "../db/generated/sqlite/client";
import { UUID_PATTERN } from "../db/ids";
import { DOC_EXAMPLES, uuidField } from "./message-serializers";
import { listingTimestamp, sdrDelta } from "./time-format";

/** The decided SDR status vocabulary, in lifecycle order. */
export const SDR_STATUSES = [
  { status: "accepted", meaning: "The API accepted the message (carries referenceId)." },
  {
    status: "scheduled",
    meaning: "A send with sendAt: waiting for its time (statusDetails says until when); then `queued`.",
  },
  {
    status: "held",
    meaning:
      "Held for review by the SMS pumping defence (a burst to unusual numbers; statusDetails says which); then `queued` once an admin releases it, or `cancelled`.",
  },
  {
    status: "queued",
    meaning:
      "Waiting for the throttle: per-number and per-account rates, bulk window. statusDetails `bulk` for bulk messages.",
  },
  { status: "sending", meaning: "Taken from the queue and being submitted to the carrier." },
  { status: "retry", meaning: "A carrier submit error that will be retried; statusDetails says which." },
  { status: "message_sent", meaning: "The carrier accepted a segment (carries segmentNumber)." },
  { status: "wait_dlr", meaning: "Waiting for the delivery receipt (DLR)." },
  { status: "delivered", meaning: "Outcome: the handset received the message." },
  { status: "undelivered", meaning: "Outcome: the network could not deliver it." },
  { status: "failed", meaning: "Outcome: the carrier refused or the submit failed for good." },
  {
    status: "expired",
    meaning:
      "Outcome: validity ran out before delivery (no receipt in time), or before it was sent (the send's validitySeconds; one per segment).",
  },
  {
    status: "rejected",
    meaning:
      "Outcome: refused before sending; statusDetails gives the reason (FromNotOwned, InvalidDestination, DuplicateDestination, CountryNotAllowed, OptedOut).",
  },
  {
    status: "cancelled",
    meaning:
      "Outcome: cancelled before anything was sent (POST /messages/{messageId}/cancel or the portal; one per segment).",
  },
  { status: "dlr_received", meaning: "The delivery receipt was received (carries segmentNumber and referenceId)." },
  { status: "status_sent", meaning: "The delivery-status webhook was accepted by your endpoint." },
  { status: "status_failed", meaning: "The delivery-status webhook gave up after its retries (24 h)." },
] as const;

// One record as GET /v3/sdrs shows it; the OpenAPI document's SdrRecord is generated from this schema.
export const sdrRecordSchema = z.object({
  delta: z.string().meta({
    pattern: "^\\d{2,}\\.\\d{3}$",
    description: "Seconds since the message was accepted, three decimals, at least two digits before the point.",
    example: "07.250",
  }),
  timestamp: z
    .string()
    .meta({ description: "When the status was recorded, UTC.", example: "2026-11-21 22:52:19.373 UTC" }),
  segmentNumber: z
    .number()
    .int()
    .min(1)
    .optional()
    .meta({ description: "On records about one segment (submit, DLR)." }),
  referenceId: z.string().optional().meta({ description: "On the accepted record and on DLR records." }),
  status: z.enum(SDR_STATUSES.map((s) => s.status) as [string, ...string[]]).meta({
    description: `In lifecycle order: ${SDR_STATUSES.map((s) => `${s.status}: ${s.meaning}`).join(" ")}`,
  }),
  statusDetails: z.string().meta({ description: 'More information, e.g. a carrier\'s delivery note; may be "".' }),
});

export type SdrRecord = z.infer<typeof sdrRecordSchema>;

// The data of GET /v3/sdrs; the OpenAPI document's SdrResponse data is generated from this schema.
export const sdrListingSchema = z.object({
  accountId: uuidField("The accountId of the path.", DOC_EXAMPLES.accountId),
  messageId: uuidField("The messageId of the path.", DOC_EXAMPLES.messageId),
  results: z.array(sdrRecordSchema).meta({ description: "Status records in time order." }),
});

export type SdrListing = z.infer<typeof sdrListingSchema>;

// What an SDR listing reads of each record, and how the records become v3 results (times relative to the message's).
export const sdrSelect = {
  status: true,
  statusDetails: true,
  segmentNumber: true,
  referenceId: true,
  createdAt: true,
} satisfies Prisma.SdrSelect;

export function toSdrRecords(
  messageCreatedAt: Date,
  sdrs: Prisma.SdrGetPayload<{ select: typeof sdrSelect }>[],
): SdrRecord[] {
  const start = messageCreatedAt.getTime();
  return sdrs.map((sdr) => {
    const record: SdrRecord = {
      delta: sdrDelta(start, sdr.createdAt.getTime()),
      timestamp: listingTimestamp(sdr.createdAt),
      status: sdr.status,
      statusDetails: sdr.statusDetails,
    };
    if (sdr.segmentNumber !== null) record.segmentNumber = sdr.segmentNumber;
    if (sdr.referenceId !== null) record.referenceId = sdr.referenceId;
    return record;
  });
}

export function notFound(): ApiError {
  // The decision: the seed's SDR error shape inside the standard envelope.
  return new ApiError("MessageNotFound", {
    data: {
      results: {
        error: "MessageNotFound",
        errorCode: 404,
        errorMessage: "Message not found",
        errorUrl: errorStatusUri("MessageNotFound"),
      },
    },
  });
}

/** GET /v3/sdrs/{accountId}/{messageId}: the message's status records in time order. */
export async function getSdrs(input: {
  principal: ApiPrincipal;
  accountId: string;
  messageId: string;
}): Promise<SdrListing> {
  const { principal, accountId } = input;
  if (!UUID_PATTERN.test(accountId)) {
    throw new ApiError("InvalidRequest", { detail: "'accountId' must be a UUID", field: "accountId" });
  }
  assertAccount(principal, accountId);
  const messageId = input.messageId.toLowerCase();
  if (!UUID_PATTERN.test(messageId)) throw notFound();
  // The account is part of the lookup: another account's message is as unknown as a missing one.
  const message = await db().message.findFirst({
    where: { id: messageId, accountId },
    select: {
      createdAt: true,
      sdrs: { orderBy: { id: "asc" }, select: sdrSelect },
    },
  });
  if (!message) throw notFound();
  const results = toSdrRecords(message.createdAt, message.sdrs);
  return { accountId, messageId, results };
}
