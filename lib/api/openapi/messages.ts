import { z } from "zod";
import type { OpenAPIRegistry } from "@asteasolutions/zod-to-openapi";
import { SEND_LIMITS, sendRequestSchema } from "../../messaging/send-schema";
import { listQuerySchema } from "../../messaging/list-schema";
import { messagePageSchema } from "../../messaging/list-messages";
import {
  DOC_EXAMPLES,
  listingResultSchema,
  messageInfoSchema,
  sendDataSchema,
} from "../../messaging/message-serializers";
import type { ErrorResponses } from "./errors";
import { previewDataSchema } from "../../messaging/preview-send";
import { documented, envelopeOf, queryAnswer, requestIdHeader, withData } from "./shared";

// POST and GET /v3/messages (PUT and DELETE refused) in the OpenAPI document: the result schemas are the
// serializers' (lib/messaging/message-serializers.ts), put in the envelope here.

const EXAMPLE_ACCOUNT = DOC_EXAMPLES.accountId;
const EXAMPLE_MESSAGE = DOC_EXAMPLES.messageId;

const SEND_DESCRIPTION = `Sends an SMS (text) or MMS (\`media\` non-empty) from one of the account's numbers to one destination (\`to\`)
or to up to ${SEND_LIMITS.maxDestinations} (\`toArray\`). One message, with its own messageId, per destination; \`data.messageInfo\` has one
entry per destination in request order. \`data\` echoes the request's fields with the defaults applied.

**Defaults.** \`conversational\` false; \`optLogic\` false; \`bulk\` false for \`to\` or a one-entry \`toArray\`, true for two or more.

**Limits** (InvalidRequest beyond, naming the field): \`toArray\` 1 to ${SEND_LIMITS.maxDestinations} entries; \`body\` at most
${SEND_LIMITS.maxBodyChars} characters; \`media\` at most ${SEND_LIMITS.maxMedia} absolute http:// or https:// URLs (another scheme such as javascript: or data:, no host, or a user name
or password in the URL: InvalidRequest naming the entry, \`'media[1]'\`); \`referenceId\` 1 to 40 letters or digits;
\`userId\`, \`userType\` at most ${SEND_LIMITS.maxUserFieldChars} characters. Unknown fields are ignored; \`null\` means "not given".

**Check order.** Credentials (401) → JSON present (MissingJSON) → JSON parses (InvalidJSON) → body is an object (InvalidRequest) →
accountId (MissingAccountId) → from (MissingFrom) → to/toArray (MissingTo; both given: InvalidRequest) → body/media (MissingBody) →
field types and limits (InvalidRequest) → accountId is the credentials' account (403 Forbidden) → from valid (InvalidNumber) →
sendAt in range (InvalidRequest naming sendAt) → from owned (200, entries rejected with reason FromNotOwned) → the account's daily limits
(429 DailyLimitReached, nothing stored). A destination that is invalid, repeated, in a country the account does not send to (CountryNotAllowed) or
opted out rejects only its entry.

**Guard rails.** Messages go only to the account's allowed countries (by default, those of its numbers). A sudden burst to premium-rate numbers or
to countries the account has no number in is accepted but \`held\` (listing status) until an admin releases or cancels it on the dashboard.

**Segments.** \`numSegments\` counts the text as sent (GSM 7-bit, Latin-1 or UCS-2, whichever needs fewest segments: 160/140/70 characters
for one segment, 153/134/67 a part when concatenated). An MMS counts 1.

**Later, for a while, in fewer segments.** \`sendAt\` (ISO 8601 with offset, 60 s to 35 days ahead) schedules the send: the answer is the
usual one, the messages are listed \`scheduled\` until then (cancel them with POST /messages/{messageId}/cancel), then join the paced queue.
\`validitySeconds\` (30 to 129600) ends a message still waiting when it runs out as \`expired\`, never sent late. \`smartEncoding\` (default:
the account's setting) replaces look-alike characters (curly quotes, long dashes…) with GSM-7 ones: \`body\` and \`numSegments\` show the result.
POST /messages/preview answers all of it without sending.

**Idempotency.** With an \`Idempotency-Key\` header the same key and the same body within 24 hours return the first response again and send
nothing; the same key with another body is 409 IdempotencyConflict.`;

const LIST_DESCRIPTION = `Lists the account's messages, outbound and inbound, newest first by default. \`accountId\` is required and must be
the credentials' account. Filters combine with AND. \`data\` echoes the query parameters as given, plus \`total\` (matches for the query),
\`position\` (= start) and \`results\`.

**Defaults.** \`start\` 0; \`count\` 50 (1 to 1000); \`sortBy\` timestamp; \`sortDir\` desc. Any other value: InvalidRequest naming the parameter.

**Timestamps.** \`timestampBegin\` is inclusive, \`timestampEnd\` exclusive. Both accept ISO 8601 (a date, meaning its midnight UTC, or a date-time
with \`Z\` or an offset) and the listing form \`YYYY-MM-DD HH:mm:ss.SSS\` read as UTC. \`timestamp\` in results is \`YYYY-MM-DD HH:mm:ss.SSS UTC\`.

**TNs.** \`from\` / \`to\` filters accept either form (a '+' must be sent as %2B); results show digits without '+'.`;

export function registerMessages(registry: OpenAPIRegistry, errorResponses: ErrorResponses): void {
  const messageInfo = registry.register("MessageInfo", documented(messageInfoSchema));
  const sendResponse = registry.register(
    "SendResponse",
    z.object({
      ...envelopeOf("MessageCreateSuccessful"),
      data: withData(sendDataSchema, { messageInfo: z.array(messageInfo) }),
    }),
  );
  const listingResult = registry.register("ListingResult", documented(listingResultSchema));

  const listResponse = registry.register(
    "ListResponse",
    queryAnswer(messagePageSchema, { results: z.array(listingResult) }, { echoesQuery: true }),
  );

  registry.registerPath({
    method: "post",
    path: "/messages",
    operationId: "sendMessages",
    tags: ["Messages"],
    summary: "Send SMS/MMS to one or many destinations",
    description: SEND_DESCRIPTION,
    request: {
      headers: z.object({
        "Idempotency-Key": z.string().min(1).max(255).optional().openapi({
          description:
            "Optional, 1 to 255 characters. The same key with the same body within 24 hours returns the first response and sends nothing; with another body: 409 IdempotencyConflict.",
          example: "order42-attempt1",
        }),
      }),
      body: {
        required: true,
        description: "One of `to` / `toArray`, and at least one of `body` / `media`.",
        content: {
          "application/json": {
            schema: registry.register(
              "SendRequest",
              // The presence rules parseSendRequest checks before the schema: one of to/toArray, at least one of body/media.
              sendRequestSchema.clone().openapi({
                description: "Unknown fields are ignored; null stands for an absent field.",
                allOf: [
                  { oneOf: [{ required: ["to"] }, { required: ["toArray"] }] },
                  { anyOf: [{ required: ["body"] }, { required: ["media"] }] },
                ],
              }),
            ),
          },
        },
      },
    },
    responses: {
      200: {
        description:
          "Message Create Successful. Also the answer when `from` is not the account's (every entry rejected, `data.error` FromNotOwned).",
        headers: requestIdHeader,
        content: {
          "application/json": {
            schema: sendResponse,
            examples: {
              accepted: {
                summary: "One destination, accepted",
                value: {
                  status: "MessageCreateSuccessful",
                  statusCode: 200,
                  statusMessage: "Message Create Successful",
                  statusUri: "",
                  data: {
                    accountId: EXAMPLE_ACCOUNT,
                    from: "14155550100",
                    to: "12125550123",
                    body: "Your order 42 has shipped.",
                    referenceId: "order42",
                    conversational: false,
                    bulk: false,
                    optLogic: false,
                    apiVersion: "v3",
                    messageInfo: [
                      {
                        messageId: EXAMPLE_MESSAGE,
                        dateCreated: "2026-11-21T22:52:12.123+0000",
                        to: "+12125550123",
                        body: "Your order 42 has shipped.",
                        numSegments: 1,
                        optStatus: "",
                        status: "accepted",
                        reason: "",
                      },
                    ],
                  },
                },
              },
              fromNotOwned: {
                summary: "`from` is not the account's number",
                value: {
                  status: "MessageCreateSuccessful",
                  statusCode: 200,
                  statusMessage: "Message Create Successful",
                  statusUri: "",
                  data: {
                    accountId: EXAMPLE_ACCOUNT,
                    from: "14155550199",
                    to: "12125550123",
                    body: "Hi",
                    conversational: false,
                    bulk: false,
                    optLogic: false,
                    apiVersion: "v3",
                    messageInfo: [
                      {
                        messageId: EXAMPLE_MESSAGE,
                        dateCreated: "2026-11-21T22:52:12.123+0000",
                        to: "+12125550123",
                        body: "Hi",
                        numSegments: 1,
                        optStatus: "",
                        status: "rejected",
                        reason: "FromNotOwned",
                      },
                    ],
                    error_code: 1001,
                    error: "FromNotOwned",
                    error_message: "'from' does not belong to the account",
                  },
                },
              },
            },
          },
        },
      },
      ...errorResponses("POST", [
        "MissingJSON",
        "InvalidJSON",
        "InvalidRequest",
        "MissingAccountId",
        "MissingFrom",
        "MissingTo",
        "MissingBody",
        "InvalidNumber",
        "Unauthorized",
        "Forbidden",
        "IdempotencyConflict",
        "DailyLimitReached",
        "SystemFailure",
      ]),
    },
  });

  registry.registerPath({
    method: "get",
    path: "/messages",
    operationId: "listMessages",
    tags: ["Messages"],
    summary: "List messages with filters, paging and sorting",
    description: LIST_DESCRIPTION,
    request: { query: listQuerySchema },
    responses: {
      200: {
        description: "Query Completed Successfully",
        headers: requestIdHeader,
        content: {
          "application/json": {
            schema: listResponse,
            example: {
              status: "QueryCompletedSuccessfully",
              statusCode: 200,
              statusMessage: "Query Completed Successfully",
              statusUri: "",
              data: {
                accountId: EXAMPLE_ACCOUNT,
                count: "20",
                apiVersion: "v3",
                total: 1,
                position: 0,
                results: [
                  {
                    accountId: EXAMPLE_ACCOUNT,
                    messageId: EXAMPLE_MESSAGE,
                    from: "14155550100",
                    to: "12125550123",
                    timestamp: "2026-11-21 22:52:12.123 UTC",
                    messageType: "sms",
                    direction: "outbound",
                    body: "Your order 42 has shipped.",
                    media: [],
                    numSegments: 1,
                    status: "delivered",
                    referenceId: "order42",
                  },
                ],
              },
            },
          },
        },
      },
      ...errorResponses("GET", [
        "MissingAccountId",
        "InvalidRequest",
        "Unauthorized",
        "Forbidden",
        "QueryTimeout",
        "SystemFailure",
      ]),
    },
  });

  registry.registerPath({
    method: "post",
    path: "/messages/preview",
    operationId: "previewMessages",
    tags: ["Messages"],
    summary: "What a send would do, without sending",
    description:
      "Takes the body of POST /messages and answers, without sending or storing anything: `body` as it would leave (smart encoding, the opt-out footer when due), its `encoding` and `numSegments`, the `culprits` (characters that keep it out of GSM-7), the look-alikes smart encoding `replaced`, and for each destination whether it would be `allowed` or refused and the `reason` (FromNotOwned, InvalidDestination, DuplicateDestination, CountryNotAllowed, OptedOut). The same checks and errors as a send.",
    request: {
      body: {
        required: true,
        content: { "application/json": { schema: registry.register("PreviewRequest", sendRequestSchema.clone()) } },
      },
    },
    responses: {
      200: {
        description: "Query Completed Successfully",
        headers: requestIdHeader,
        content: {
          "application/json": {
            schema: registry.register(
              "PreviewResponse",
              z.object({ ...envelopeOf("QueryCompletedSuccessfully"), data: previewDataSchema }),
            ),
            example: {
              status: "QueryCompletedSuccessfully",
              statusCode: 200,
              statusMessage: "Query Completed Successfully",
              statusUri: "",
              data: {
                accountId: EXAMPLE_ACCOUNT,
                messageType: "sms",
                body: "Don't forget: your table is booked for 8 pm.",
                encoding: "GSM7",
                numSegments: 1,
                culprits: [],
                replaced: ["\u2019"],
                footer: false,
                sendAt: null,
                destinations: [
                  { to: "+12125550123", allowed: true, reason: "", footer: false },
                  { to: "+12125550199", allowed: false, reason: "OptedOut", footer: false },
                ],
                apiVersion: "v3",
              },
            },
          },
        },
      },
      ...errorResponses("POST", [
        "MissingJSON",
        "InvalidJSON",
        "InvalidRequest",
        "MissingAccountId",
        "MissingFrom",
        "MissingTo",
        "MissingBody",
        "InvalidNumber",
        "Unauthorized",
        "Forbidden",
      ]),
    },
  });

  registry.registerPath({
    method: "post",
    path: "/messages/{messageId}/cancel",
    operationId: "cancelMessage",
    tags: ["Messages"],
    summary: "Cancel a message that has not left",
    description:
      "No body. Cancels a message of the API key's account that is still waiting: `scheduled`, or `queued` with no part handed to the carrier. It becomes `cancelled`, with a `cancelled` SDR and delivery-status webhook event for each segment. Another account's message answers 404 MessageNotFound; one that has left (or ended) 409 MessageNotCancellable, changing nothing.",
    request: {
      params: z.object({
        messageId: z.string().openapi({ description: "The message's id (UUID).", example: EXAMPLE_MESSAGE }),
      }),
    },
    responses: {
      200: {
        description: "Update Successful",
        headers: requestIdHeader,
        content: {
          "application/json": {
            schema: registry.register(
              "CancelResponse",
              z.object({
                ...envelopeOf("UpdateSuccessful"),
                data: z.object({
                  accountId: z.string(),
                  messageId: z.string(),
                  status: z.literal("cancelled"),
                  apiVersion: z.literal("v3"),
                }),
              }),
            ),
            example: {
              status: "UpdateSuccessful",
              statusCode: 200,
              statusMessage: "Update Successful",
              statusUri: "",
              data: { accountId: EXAMPLE_ACCOUNT, messageId: EXAMPLE_MESSAGE, status: "cancelled", apiVersion: "v3" },
            },
          },
        },
      },
      ...errorResponses("POST", ["Unauthorized", "MessageNotFound", "MessageNotCancellable"]),
    },
  });

  for (const method of ["put", "delete"] as const) {
    registry.registerPath({
      method,
      path: "/messages",
      operationId: method === "put" ? "updateMessages" : "deleteMessages",
      tags: ["Messages"],
      summary: `Not allowed: messages cannot be ${method === "put" ? "changed" : "deleted"}`,
      description: `Always 400 ResourceNotAllowed "Resource not allowed on ${method.toUpperCase()}", whoever asks (PATCH likewise).`,
      security: [],
      responses: errorResponses(method.toUpperCase(), ["ResourceNotAllowed"]),
    });
  }
}
