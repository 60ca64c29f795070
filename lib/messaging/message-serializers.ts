import { z } from "zod";
import type { Prisma } from "../db/generated/sqlite/client";
import { LISTING_STATUSES } from "./listing-values";
import { sendRequestSchema, type SendRequest } from "./send-schema";
import { listingTimestamp } from "./time-format";

// What /v3 shows of messages, each as a zod schema with the serializer that fills it: the types come from the
// schemas, and the OpenAPI document (lib/api/openapi/) is generated from the same schemas, so the two cannot drift.
// The .meta() calls are that documentation and change nothing a serializer returns.

/** Example identifiers the documentation uses throughout. */
export const DOC_EXAMPLES = {
  accountId: "0195f3a2-7c4e-7b1a-9d2e-4f5a6b7c8d9e",
  messageId: "0196a1b2-3c4d-7e5f-8a9b-0c1d2e3f4a5b",
} as const;

export const uuidField = (description: string, example: string) =>
  z.string().meta({ format: "uuid", description, example });

/** Why a send refuses a destination (an entry's `reason`), in the words the docs page shows. */
export const SEND_REJECT_REASONS = [
  {
    reason: "FromNotOwned",
    meaning: "`from` is a valid number but not provisioned to the account; every entry is rejected.",
  },
  { reason: "InvalidDestination", meaning: "This `to` / `toArray` entry is not a valid E.164 number." },
  { reason: "DuplicateDestination", meaning: "The same number appeared earlier in `toArray`; it is sent once." },
  {
    reason: "OptedOut",
    meaning:
      "The destination replied STOP (or another opt-out keyword) to this account, or an admin opted it out; refused whatever `optLogic` says.",
  },
] as const;

export const messageInfoSchema = z
  .object({
    messageId: uuidField("Identifier of the message sent to this destination.", DOC_EXAMPLES.messageId),
    dateCreated: z.string().meta({
      description: "When the request was received: ISO 8601 with milliseconds and a numeric offset.",
      example: "2026-11-21T22:52:12.123+0000",
    }),
    to: z.string().meta({
      description: "The destination as '+' and digits (as given, when it is not a valid number).",
      example: "+12125550123",
    }),
    body: z
      .string()
      .meta({ description: "The text as sent; with optLogic the opt-out footer may have been appended." }),
    numSegments: z
      .number()
      .int()
      .min(1)
      .meta({ description: "Segments needed for the text as sent; 1 for an MMS.", example: 1 }),
    optStatus: z.enum(["", "in", "out", "notIn"]).meta({
      description:
        'Opt status of the destination: "" when optLogic is false; else `in` (opted in by keyword or by an admin), `out` (opted out; the entry is rejected), or `notIn` (no record).',
    }),
    status: z
      .enum(["accepted", "rejected"])
      .meta({ description: "accepted: queued for sending. rejected: see reason." }),
    reason: z.enum(["", ...SEND_REJECT_REASONS.map((r) => r.reason)] as [string, ...string[]]).meta({
      description: `Why the entry was rejected; "" when accepted. ${SEND_REJECT_REASONS.map((r) => `${r.reason}: ${r.meaning}`).join(" ")}`,
    }),
  })
  .meta({ description: "One entry per destination, in request order." });

/** One destination's outcome of a send. */
export type MessageInfo = z.infer<typeof messageInfoSchema>;

/** What a send did: the request as applied, one entry per destination, and the refusal of the whole send if any. */
export interface SendResult {
  request: SendRequest;
  /** As applied: the request's value, the default for the number of destinations, or automatic bulk. */
  bulk: boolean;
  messageInfo: MessageInfo[];
  /** The decision for a `from` that is valid but not the account's: a 200 answer, every entry rejected. */
  refusal: "FromNotOwned" | null;
}

/** The send response's data (without apiVersion, which the envelope adds). */
export const sendDataSchema = sendRequestSchema
  .extend({
    conversational: z.boolean(),
    bulk: z.boolean().meta({
      description: "As applied: the request's value, or the default for the number of destinations.",
    }),
    optLogic: z.boolean(),
    messageInfo: z.array(messageInfoSchema),
    error_code: z
      .number()
      .int()
      .optional()
      .meta({ description: "Only on a failure of the whole send: 1001 for FromNotOwned.", example: 1001 }),
    error: z
      .string()
      .optional()
      .meta({ description: "Only on a failure of the whole send, e.g. FromNotOwned.", example: "FromNotOwned" }),
    error_message: z.string().optional().meta({ example: "'from' does not belong to the account" }),
  })
  .meta({ description: "The request's fields (with defaults applied) plus the result." });

export type SendData = z.infer<typeof sendDataSchema>;

const FROM_NOT_OWNED = {
  error_code: 1001,
  error: "FromNotOwned",
  error_message: "'from' does not belong to the account",
} as const;

/** The send response's data: the request's fields with the defaults applied, the entries, and the refusal. */
export function toSendData(result: SendResult): SendData {
  const { request } = result;
  const data: SendData = {
    ...request,
    conversational: request.conversational ?? false,
    bulk: result.bulk,
    optLogic: request.optLogic ?? false,
    messageInfo: result.messageInfo,
  };
  if (result.refusal === "FromNotOwned") Object.assign(data, FROM_NOT_OWNED);
  return data;
}

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

export const listingResultSchema = z.object({
  accountId: uuidField("The account.", DOC_EXAMPLES.accountId),
  messageId: uuidField("The message.", DOC_EXAMPLES.messageId),
  from: z.string().meta({ description: "Originating TN, digits without '+'.", example: "14155550100" }),
  to: z.string().meta({ description: "Destination TN, digits without '+'.", example: "12125550123" }),
  timestamp: z.string().meta({
    description: "When the message was received or accepted, UTC.",
    example: "2026-11-21 22:52:12.123 UTC",
  }),
  messageType: z.enum(["sms", "mms"]),
  direction: z.enum(["outbound", "inbound"]),
  body: z.string(),
  media: z.array(z.string()).meta({ description: "Media URLs; empty when none." }),
  numSegments: z.number().int(),
  status: z
    .enum(["", ...LISTING_STATUSES])
    .meta({ description: 'Delivery status of an outbound message; "" for inbound.' }),
  referenceId: z.string().meta({ description: 'The sender\'s referenceId; "" when none.' }),
});

export type ListingResult = z.infer<typeof listingResultSchema>;

export function toListingResult(row: ListingRow): ListingResult {
  return {
    accountId: row.accountId,
    messageId: row.id,
    from: row.fromNumber,
    to: row.toNumber,
    timestamp: listingTimestamp(row.createdAt),
    messageType: row.messageType as ListingResult["messageType"],
    direction: row.direction as ListingResult["direction"],
    body: row.body,
    media: JSON.parse(row.media) as string[],
    numSegments: row.numSegments,
    status: row.status as ListingResult["status"],
    referenceId: row.referenceId ?? "",
  };
}
