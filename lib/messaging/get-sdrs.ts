import { ApiError } from "../api/api-error";
import { assertAccount, type ApiPrincipal } from "../api/authenticate";
import { errorStatusUri } from "../api/envelope";
import { db } from "../db/client";
import type { Prisma } from "../db/generated/sqlite/client";
import { UUID_PATTERN } from "../db/ids";
import { listingTimestamp, sdrDelta } from "./time-format";

export interface SdrRecord {
  delta: string;
  timestamp: string;
  segmentNumber?: number;
  referenceId?: string;
  status: string;
  statusDetails: string;
}

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

function notFound(): ApiError {
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
}): Promise<{ accountId: string; messageId: string; results: SdrRecord[] }> {
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
