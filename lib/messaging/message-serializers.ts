import type { Prisma } from "../db/generated/sqlite/client";
import { listingTimestamp } from "./time-format";

// What a listing reads, and how a row becomes a v3 result: a schema change never leaks into /v3.
export const listingSelect = {
  id: true,
  accountId: true,
  fromNumber: true,
  toNumber: true,
  createdAt: true,
  messageType: true,
  direction: true,
  body: true,
  media: true,
  numSegments: true,
  status: true,
  referenceId: true,
} satisfies Prisma.MessageSelect;

export type ListingRow = Prisma.MessageGetPayload<{ select: typeof listingSelect }>;

export interface ListingResult {
  accountId: string;
  messageId: string;
  from: string;
  to: string;
  timestamp: string;
  messageType: string;
  direction: string;
  body: string;
  media: string[];
  numSegments: number;
  status: string;
  referenceId: string;
}

export function toListingResult(row: ListingRow): ListingResult {
  return {
    accountId: row.accountId,
    messageId: row.id,
    from: row.fromNumber,
    to: row.toNumber,
    timestamp: listingTimestamp(row.createdAt),
    messageType: row.messageType,
    direction: row.direction,
    body: row.body,
    media: JSON.parse(row.media) as string[],
    numSegments: row.numSegments,
    status: row.status,
    referenceId: row.referenceId ?? "",
  };
}
