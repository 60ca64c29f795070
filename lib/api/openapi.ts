import { z } from "zod";
import { OpenAPIRegistry, OpenApiGeneratorV31, extendZodWithOpenApi } from "@asteasolutions/zod-to-openapi";
import { publicUrl } from "../env";
import { SEND_LIMITS, sendRequestSchema } from "../messaging/send-schema";
import { LISTING_STATUSES, listQuerySchema } from "../messaging/list-schema";
import { NUMBER_LIMITS } from "../numbers/number-schema";
import { numbersQuerySchema, provisionRequestSchema, releaseQuerySchema } from "../numbers/v3-number-schema";
import { errorStatusUri } from "./envelope";
import { errorCodes, successCodes, type ErrorCode } from "./error-codes";

// The OpenAPI 3.1 description of /v3, generated from the zod schemas the handlers validate with (convention 5), plus
// response schemas written here. The /docs page renders from the same document.

// Schemas made after this call get `.openapi()`. The request schemas were made before it (module order), so they
// carry their documentation through zod's own `.meta()`, which the generator reads as well.
extendZodWithOpenApi(z);

export type OpenApiDocument = ReturnType<OpenApiGeneratorV31["generateDocument"]>;

export interface ErrorCodeDoc {
  status: ErrorCode;
  statusCode: number;
  statusMessage: string;
  statusUri: string;
  appliesTo: string;
  when: string;
}

// When each code happens, in the words the docs page shows. A code of error-codes.ts missing here still appears,
// with a generic text; tests/api/openapi.test.ts fails until it is described.
const ERROR_WHEN: Partial<Record<ErrorCode, { appliesTo: string; when: string }>> = {
  MissingJSON: {
    appliesTo: "POST /messages, POST /numbers",
    when: "The request has no body, or a body that is not JSON sent with a Content-Type other than JSON.",
  },
  InvalidJSON: {
    appliesTo: "POST /messages, POST /numbers",
    when:
      "The body is sent as JSON (or with no Content-Type) but does not parse, or nests objects and arrays deeper than 64 levels " +
      "(the body itself is level 1; checked before the body is parsed).",
  },
  MissingAccountId: {
    appliesTo: "POST /messages, GET /messages, GET/POST /numbers, DELETE /numbers/{number}",
    when: "`accountId` is absent, null or empty: in the request body (send, provision), or as the query parameter (listings, release).",
  },
  MissingFrom: { appliesTo: "POST /messages", when: "`from` is absent, null or empty." },
  MissingTo: {
    appliesTo: "POST /messages",
    when: "Neither `to` nor `toArray` is given (an empty `toArray` counts as absent).",
  },
  MissingBody: {
    appliesTo: "POST /messages",
    when: "Neither `body` nor a non-empty `media` is given. An MMS needs no body.",
  },
  InvalidRequest: {
    appliesTo: "all",
    when:
      "Any other malformed request: the body is not a JSON object; both `to` and `toArray`; a field of the wrong type or beyond its limit; " +
      "an unknown value or a malformed number for a listing parameter; an `accountId` in the SDR path that is not a UUID; " +
      "an empty or over-long Idempotency-Key; a request body over MAX_BODY_BYTES (1 MiB by default); the NUL character (U+0000) in JSON text or a query parameter; " +
      "a path parameter that is not valid percent-encoded UTF-8 (checked before the credentials); HTTP that does not parse or lacks Host; " +
      "a number to provision that is not valid or is held by another account " +
      "(which account is never said); a number to release while a message from it is being handed to the carrier (try again shortly). " +
      "`data.error_message` says what is wrong and `data.field` names the field or parameter.",
  },
  InvalidNumber: {
    appliesTo: "POST /messages",
    when:
      "`from` is not a valid E.164 number. Checked after the credentials matched `accountId`. (A valid `from` that is not the account's is " +
      "not an error: the answer is a 200 envelope with `data.error` FromNotOwned and every entry rejected.)",
  },
  Unauthorized: {
    appliesTo: "all authenticated operations",
    when:
      "No `apikey` header and no `Authorization` header; an unknown, revoked or expired key; a Basic username that is not the key's account; " +
      "or both schemes sent for different accounts. Checked before the request is read.",
  },
  Forbidden: {
    appliesTo: "every operation with an accountId",
    when: "The `accountId` of the body, query or path is not the account of the credentials.",
  },
  MessageNotFound: {
    appliesTo: "GET /sdrs",
    when:
      "No message with this messageId in this account: it does not exist or belongs to another account (the two are not told apart). " +
      "`data.results` carries the SDR error shape `{error, errorCode, errorMessage, errorUrl}`.",
  },
  NotFound: {
    appliesTo: "DELETE /numbers/{number}, the admin API (/api/admin/accounts/{accountId}/…)",
    when:
      "The number to release is not provisioned to the account: held by nobody or by another account (the two are not told apart). " +
      "In the admin API also an account, event or other record that is not there.",
  },
  CrossSiteRequest: {
    appliesTo: "the portal and the admin API with a portal session (never /v3 or API keys)",
    when:
      "A state-changing request whose Origin (or Sec-Fetch-Site, or Referer) shows that a page on another origin made the browser send it. " +
      "`data.error_message` names the origin. The refusal is in the account's audit trail (docs/SECURITY.md).",
  },
  UnsupportedMediaType: {
    appliesTo: "the admin API with a portal session (never /v3 or API keys)",
    when: "A state-changing request with a body not declared `Content-Type: application/json`.",
  },
  QueryTimeout: {
    appliesTo: "GET /messages",
    when: "The listing ran longer than LISTING_TIMEOUT_SECONDS (10 s by default) and was stopped. `data.error_message` says what to do: narrow the query (a time range, from, status) or page with `after` instead of a large `start`.",
  },
  IdempotencyConflict: {
    appliesTo: "POST /messages",
    when: "The Idempotency-Key was used by this account within the last 24 hours with a different request body.",
  },
  ResourceNotAllowed: {
    appliesTo:
      "PUT/DELETE /messages, non-GET /sdrs, PUT/DELETE /numbers, non-DELETE /numbers/{number}, non-GET /openapi.json; any other method anywhere",
    when:
      "The method is not offered on this path: messages cannot be changed or deleted; a number is released with DELETE /numbers/{number}. " +
      "Methods other than GET, HEAD, POST, PUT, PATCH and DELETE (OPTIONS, TRACE, CONNECT, WebDAV's…) are refused so on every path. " +
      "Always 400, never 405. The statusMessage names the method. Needs no credentials.",
  },
  UnknownResource: {
    appliesTo: "any other path under /v3 or /api",
    when:
      "The path is not part of the API (including /v3 itself), is not valid percent-encoded UTF-8 outside a path parameter, or leads out of " +
      "the API with `..` segments. The statusMessage names the method. Needs no credentials.",
  },
  TooManyRequests: {
    appliesTo: "all authenticated operations, when the operator set API_RATE_LIMIT_PER_SECOND",
    when:
      "The API key made more requests than the configured rate allows (a burst at once, then a steady rate a second; each key " +
      "counts alone). The `Retry-After` header says how many seconds to wait; the refused request did not count. Checked right " +
      "after the credentials. Off unless configured.",
  },
  SystemFailure: {
    appliesTo: "all",
    when:
      "An unexpected failure on the server. Nothing internal is shown; the failure is logged with a request id, which the response carries " +
      "in the `x-request-id` header. Retrying with the same Idempotency-Key is safe.",
  },
};

/** Every code of error-codes.ts with its statusCode, statusMessage, docs link and when it happens. */
export function errorCodeDocs(): ErrorCodeDoc[] {
  return (Object.keys(errorCodes) as ErrorCode[]).map((code) => ({
    status: code,
    statusCode: errorCodes[code].statusCode,
    statusMessage: errorCodes[code].statusMessage,
    statusUri: errorStatusUri(code),
    appliesTo: ERROR_WHEN[code]?.appliesTo ?? "",
    when: ERROR_WHEN[code]?.when ?? "See statusMessage.",
  }));
}

/** The decided SDR status vocabulary, in lifecycle order. */
export const SDR_STATUSES = [
  { status: "accepted", meaning: "The API accepted the message (carries referenceId)." },
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
  { status: "expired", meaning: "Outcome: validity ran out before delivery." },
  {
    status: "rejected",
    meaning:
      "Outcome: refused before sending; statusDetails gives the reason (FromNotOwned, InvalidDestination, DuplicateDestination, OptedOut).",
  },
  { status: "dlr_received", meaning: "The delivery receipt was received (carries segmentNumber and referenceId)." },
  { status: "status_sent", meaning: "The delivery-status webhook was accepted by your endpoint." },
  { status: "status_failed", meaning: "The delivery-status webhook gave up after its retries (24 h)." },
] as const;

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

const EXAMPLE_ACCOUNT = "0195f3a2-7c4e-7b1a-9d2e-4f5a6b7c8d9e";
const EXAMPLE_MESSAGE = "0196a1b2-3c4d-7e5f-8a9b-0c1d2e3f4a5b";

function errorExample(code: ErrorCode, method: string, data?: Record<string, unknown>) {
  const { statusCode, statusMessage } = errorCodes[code];
  return {
    summary: `${code}: ${statusMessage.replace("{method}", method)}`,
    value: {
      status: code,
      statusCode,
      statusMessage: statusMessage.replace("{method}", method),
      statusUri: errorStatusUri(code),
      ...(data ? { data: { ...data, apiVersion: "v3" } } : {}),
    },
  };
}

// Extra data the examples of some codes carry, as the handlers send it.
const EXAMPLE_ERROR_DATA: Partial<Record<ErrorCode, Record<string, unknown>>> = {
  InvalidRequest: {
    error: "InvalidRequest",
    error_message: "'referenceId' must be 1 to 40 letters or digits",
    field: "referenceId",
  },
  MessageNotFound: {
    results: {
      error: "MessageNotFound",
      errorCode: 404,
      errorMessage: "Message not found",
      errorUrl: errorStatusUri("MessageNotFound"),
    },
  },
};

const INFO_DESCRIPTION = `Send SMS and MMS, list messages, read the session detail records (SDRs) of a message, and provision and release
the account's telephone numbers.
Human-readable reference with examples: [/docs](/docs).

**Envelope.** Every response is JSON with \`status\` (alpha code), \`statusCode\` (a number, always equal to the HTTP status),
\`statusMessage\`, \`statusUri\` (a link to the code's entry under /docs#error-<Code>, or "" on success) and, where there is one,
\`data\`, whose \`apiVersion\` is always "v3". Every response carries an \`x-request-id\` header.

**Authentication.** Header \`apikey: <key>\`, or HTTP Basic with the account's UUID as username and a key of that account as
password. Either is enough; when both are sent both must be valid for the same account. Keys look like \`pk_\` + 32 letters
and digits, belong to one account, are shown once at creation, and can be revoked or given an expiry.

**Telephone numbers (TNs).** Requests accept digits with country code, with or without a leading '+' (\`14155550100\`,
\`+14155550100\`). Send responses show \`+14155550100\`; listing results and webhook payloads show \`14155550100\`.
A number is valid when it is a valid E.164 number for its country.

**Timestamps.** \`dateCreated\` in send responses: \`2026-11-21T22:52:12.123+0000\`. \`timestamp\` in listings and SDRs:
\`2026-11-21 22:52:12.123 UTC\`. SDR \`delta\`: seconds since acceptance, three decimals, at least two digits before the point
(\`"07.250"\`). Listing filters take ISO 8601 (date or date-time, any offset) or \`YYYY-MM-DD HH:mm:ss.SSS\` (UTC).

**Errors.** Each code's statusCode and statusMessage are listed under \`x-error-codes\` and at /docs#errors.`;

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
from owned (200, entries rejected with reason FromNotOwned). A destination that is invalid, repeated or opted out rejects only its entry.

**Segments.** \`numSegments\` counts the text as sent (GSM 7-bit, Latin-1 or UCS-2, whichever needs fewest segments: 160/140/70 characters
for one segment, 153/134/67 a part when concatenated). An MMS counts 1.

**Idempotency.** With an \`Idempotency-Key\` header the same key and the same body within 24 hours return the first response again and send
nothing; the same key with another body is 409 IdempotencyConflict.`;

const LIST_DESCRIPTION = `Lists the account's messages, outbound and inbound, newest first by default. \`accountId\` is required and must be
the credentials' account. Filters combine with AND. \`data\` echoes the query parameters as given, plus \`total\` (matches for the query),
\`position\` (= start) and \`results\`.

**Defaults.** \`start\` 0; \`count\` 50 (1 to 1000); \`sortBy\` timestamp; \`sortDir\` desc. Any other value: InvalidRequest naming the parameter.

**Timestamps.** \`timestampBegin\` is inclusive, \`timestampEnd\` exclusive. Both accept ISO 8601 (a date, meaning its midnight UTC, or a date-time
with \`Z\` or an offset) and the listing form \`YYYY-MM-DD HH:mm:ss.SSS\` read as UTC. \`timestamp\` in results is \`YYYY-MM-DD HH:mm:ss.SSS UTC\`.

**TNs.** \`from\` / \`to\` filters accept either form (a '+' must be sent as %2B); results show digits without '+'.`;

const NUMBERS_LIST_DESCRIPTION = `Lists the account's telephone numbers in number order, a page at a time. \`accountId\` is required and must be the
credentials' account. \`data\` echoes the query parameters as given, plus \`total\` (all the account's numbers), \`position\` (= start) and
\`numbers\`. Defaults: \`start\` 0; \`count\` 50 (1 to 1000). Numbers are digits without '+', as in message listings.`;

const NUMBERS_PROVISION_DESCRIPTION = `Provisions a telephone number to the account: from then on the account can send from it and receives the
texts sent to it. The number must be a valid E.164 number (digits with country code, '+' optional).

**Idempotent.** Provisioning a number the account holds already answers it as it is, with \`created\` false; nothing changes (the
label and rate are changed in the portal or with \`parley number update\`). A number held by another account is refused
(InvalidRequest, field \`number\`); the answer never says which account holds it.

**Rate.** \`ratePerSecond\` (default ${NUMBER_LIMITS.defaultRatePerSecond}, above 0 and at most ${NUMBER_LIMITS.maxRatePerSecond}) paces the messages leaving this
number; the account's own limit still caps the sum of its numbers. Unknown fields are ignored.

**Check order.** Credentials (401) → JSON present (MissingJSON) → JSON parses (InvalidJSON) → body is an object (InvalidRequest) →
accountId (MissingAccountId) → fields (InvalidRequest, naming the field) → accountId is the credentials' account (403 Forbidden) →
the number is free or already the account's (InvalidRequest).`;

const NUMBERS_RELEASE_DESCRIPTION = `Releases one of the account's numbers. From then on a send from it is refused (200, every entry rejected,
reason FromNotOwned) and texts sent to it are not received. The number may be given with or without '+' (\`%2B\`).

**Queued messages.** Messages still queued to be sent from the number would never leave: they are cancelled, as a send from the
released number would be refused (status \`rejected\`, reason FromNotOwned, with a \`rejected\` SDR), and \`data.cancelledMessages\`
says how many. A message whose parts are being handed to the carrier at that moment is let finish: the release is refused
(InvalidRequest) for the few seconds that takes, and nothing is cancelled.

A number the account does not hold, whether another account holds it or nobody does, is 404 NotFound.`;

const SDR_DESCRIPTION = `The status records of one message, in time order. Status vocabulary, in lifecycle order: ${SDR_STATUSES.map((s) => s.status).join(", ")}
(one outcome of delivered, undelivered, failed, expired, rejected; \`retry\` only when a carrier submit is retried).
\`segmentNumber\` appears on records about one segment (submit, DLR); \`referenceId\` on the \`accepted\` record and on DLR records.
A message that does not exist, or belongs to another account, is 404 MessageNotFound.`;

function buildDocument(): OpenApiDocument {
  const registry = new OpenAPIRegistry();

  registry.registerComponent("securitySchemes", "apikey", {
    type: "apiKey",
    in: "header",
    name: "apikey",
    description:
      "An API key of the account (`pk_` + 32 letters and digits), created in the portal or with `npm run parley -- key create --account <accountId>`.",
  });
  registry.registerComponent("securitySchemes", "basic", {
    type: "http",
    scheme: "basic",
    description: "Username: the account's UUID (accountId). Password: an API key of that account.",
  });

  const uuid = (description: string, example: string) => z.string().openapi({ format: "uuid", description, example });
  const apiVersion = z.literal("v3").openapi({ description: "Always v3." });

  const messageInfo = registry.register(
    "MessageInfo",
    z
      .object({
        messageId: uuid("Identifier of the message sent to this destination.", EXAMPLE_MESSAGE),
        dateCreated: z.string().openapi({
          description: "When the request was received: ISO 8601 with milliseconds and a numeric offset.",
          example: "2026-11-21T22:52:12.123+0000",
        }),
        to: z.string().openapi({
          description: "The destination as '+' and digits (as given, when it is not a valid number).",
          example: "+12125550123",
        }),
        body: z
          .string()
          .openapi({ description: "The text as sent; with optLogic the opt-out footer may have been appended." }),
        numSegments: z
          .number()
          .int()
          .min(1)
          .openapi({ description: "Segments needed for the text as sent; 1 for an MMS.", example: 1 }),
        optStatus: z.enum(["", "in", "out", "notIn"]).openapi({
          description:
            'Opt status of the destination: "" when optLogic is false; else `in` (opted in by keyword or by an admin), `out` (opted out; the entry is rejected), or `notIn` (no record).',
        }),
        status: z
          .enum(["accepted", "rejected"])
          .openapi({ description: "accepted: queued for sending. rejected: see reason." }),
        reason: z.enum(["", ...SEND_REJECT_REASONS.map((r) => r.reason)] as [string, ...string[]]).openapi({
          description: `Why the entry was rejected; "" when accepted. ${SEND_REJECT_REASONS.map((r) => `${r.reason}: ${r.meaning}`).join(" ")}`,
        }),
      })
      .openapi({ description: "One entry per destination, in request order." }),
  );

  const envelopeOf = (code: keyof typeof successCodes) => ({
    status: z.literal(code),
    statusCode: z.literal(200).openapi({ description: "Equals the HTTP status." }),
    statusMessage: z.literal(successCodes[code].statusMessage),
    statusUri: z.literal("").openapi({ description: "Empty on success." }),
  });

  const sendResponse = registry.register(
    "SendResponse",
    z.object({
      ...envelopeOf("MessageCreateSuccessful"),
      data: sendRequestSchema
        .extend({
          conversational: z.boolean(),
          bulk: z.boolean().openapi({
            description: "As applied: the request's value, or the default for the number of destinations.",
          }),
          optLogic: z.boolean(),
          apiVersion,
          messageInfo: z.array(messageInfo),
          error_code: z
            .number()
            .int()
            .optional()
            .openapi({ description: "Only on a failure of the whole send: 1001 for FromNotOwned.", example: 1001 }),
          error: z.string().optional().openapi({
            description: "Only on a failure of the whole send, e.g. FromNotOwned.",
            example: "FromNotOwned",
          }),
          error_message: z.string().optional().openapi({ example: "'from' does not belong to the account" }),
        })
        .openapi({ description: "The request's fields (with defaults applied) plus the result." }),
    }),
  );

  const listingResult = registry.register(
    "ListingResult",
    z.object({
      accountId: uuid("The account.", EXAMPLE_ACCOUNT),
      messageId: uuid("The message.", EXAMPLE_MESSAGE),
      from: z.string().openapi({ description: "Originating TN, digits without '+'.", example: "14155550100" }),
      to: z.string().openapi({ description: "Destination TN, digits without '+'.", example: "12125550123" }),
      timestamp: z.string().openapi({
        description: "When the message was received or accepted, UTC.",
        example: "2026-11-21 22:52:12.123 UTC",
      }),
      messageType: z.enum(["sms", "mms"]),
      direction: z.enum(["outbound", "inbound"]),
      body: z.string(),
      media: z.array(z.string()).openapi({ description: "Media URLs; empty when none." }),
      numSegments: z.number().int(),
      status: z
        .enum(["", ...LISTING_STATUSES])
        .openapi({ description: 'Delivery status of an outbound message; "" for inbound.' }),
      referenceId: z.string().openapi({ description: 'The sender\'s referenceId; "" when none.' }),
    }),
  );

  const listResponse = registry.register(
    "ListResponse",
    z.object({
      ...envelopeOf("QueryCompletedSuccessfully"),
      data: z
        .object({
          apiVersion,
          total: z.number().int().openapi({ description: "Number of messages matching the query (all pages)." }),
          position: z.number().int().openapi({ description: "Offset of this page (= start)." }),
          results: z.array(listingResult),
        })
        .catchall(z.string())
        .openapi({ description: "The query parameters as given (strings), plus the page." }),
    }),
  );

  const sdrRecord = registry.register(
    "SdrRecord",
    z.object({
      delta: z.string().openapi({
        pattern: "^\\d{2,}\\.\\d{3}$",
        description: "Seconds since the message was accepted, three decimals, at least two digits before the point.",
        example: "07.250",
      }),
      timestamp: z
        .string()
        .openapi({ description: "When the status was recorded, UTC.", example: "2026-11-21 22:52:19.373 UTC" }),
      segmentNumber: z
        .number()
        .int()
        .min(1)
        .optional()
        .openapi({ description: "On records about one segment (submit, DLR)." }),
      referenceId: z.string().optional().openapi({ description: "On the accepted record and on DLR records." }),
      status: z.enum(SDR_STATUSES.map((s) => s.status) as [string, ...string[]]).openapi({
        description: `In lifecycle order: ${SDR_STATUSES.map((s) => `${s.status}: ${s.meaning}`).join(" ")}`,
      }),
      statusDetails: z
        .string()
        .openapi({ description: 'More information, e.g. a carrier\'s delivery note; may be "".' }),
    }),
  );

  const sdrResponse = registry.register(
    "SdrResponse",
    z.object({
      ...envelopeOf("QueryCompletedSuccessfully"),
      data: z.object({
        apiVersion,
        accountId: uuid("The accountId of the path.", EXAMPLE_ACCOUNT),
        messageId: uuid("The messageId of the path.", EXAMPLE_MESSAGE),
        results: z.array(sdrRecord).openapi({ description: "Status records in time order." }),
      }),
    }),
  );

  const errorEnvelope = registry.register(
    "ErrorEnvelope",
    z
      .object({
        status: z
          .enum(Object.keys(errorCodes) as [ErrorCode, ...ErrorCode[]])
          .openapi({ description: "The error code; see x-error-codes and /docs#errors." }),
        statusCode: z.number().int().openapi({ description: "Equals the HTTP status." }),
        statusMessage: z
          .string()
          .openapi({ description: "The code's fixed text (ResourceNotAllowed and UnknownResource name the method)." }),
        statusUri: z.string().openapi({
          format: "uri",
          description: "Link to this code's entry in the API reference (/docs#error-<Code>).",
        }),
        data: z
          .object({
            apiVersion,
            error: z.string().optional().openapi({ description: "The code again, when error_message is present." }),
            error_message: z
              .string()
              .optional()
              .openapi({ description: "What exactly is wrong (which field or parameter, and why)." }),
            field: z.string().optional().openapi({ description: "The field, parameter or header at fault." }),
          })
          .optional()
          .openapi({ description: "Present when there is detail to give." }),
      })
      .openapi({ description: "A failed request. statusCode equals the HTTP status." }),
  );

  const sdrNotFound = registry.register(
    "SdrNotFound",
    z.object({
      status: z.literal("MessageNotFound"),
      statusCode: z.literal(404),
      statusMessage: z.literal(errorCodes.MessageNotFound.statusMessage),
      statusUri: z.string().openapi({ format: "uri" }),
      data: z.object({
        apiVersion,
        results: z
          .object({
            error: z.literal("MessageNotFound"),
            errorCode: z.literal(404),
            errorMessage: z.literal(errorCodes.MessageNotFound.statusMessage),
            errorUrl: z.string().openapi({ format: "uri" }),
          })
          .openapi({ description: "The seed's SDR error shape." }),
      }),
    }),
  );

  const requestIdHeader = z.object({
    "x-request-id": z
      .string()
      .openapi({ description: "The request's id, also in the server's log; quote it when reporting a problem." }),
  });

  const rateLimitHeaders = requestIdHeader.extend({
    "retry-after": z
      .string()
      .openapi({ description: "Whole seconds to wait before the key's next request is let in.", example: "1" }),
  });

  type Responses = Parameters<OpenAPIRegistry["registerPath"]>[0]["responses"];
  const errorResponses = (
    method: string,
    codes: ErrorCode[],
    schemaFor: (code: ErrorCode) => z.ZodType = () => errorEnvelope,
  ): Responses => {
    // Every operation that takes credentials is subject to the per-key request rate limit, when it is configured.
    if (codes.includes("Unauthorized") && !codes.includes("TooManyRequests")) codes = [...codes, "TooManyRequests"];
    const byStatus = new Map<number, ErrorCode[]>();
    for (const code of codes)
      byStatus.set(errorCodes[code].statusCode, [...(byStatus.get(errorCodes[code].statusCode) ?? []), code]);
    const responses: Responses = {};
    for (const [statusCode, group] of byStatus) {
      responses[String(statusCode)] = {
        description: group
          .map((code) => `${code}: ${errorCodes[code].statusMessage.replace("{method}", method)}`)
          .join("; "),
        headers: statusCode === 429 ? rateLimitHeaders : requestIdHeader,
        content: {
          "application/json": {
            schema: schemaFor(group[0]!),
            examples: Object.fromEntries(
              group.map((code) => [code, errorExample(code, method, EXAMPLE_ERROR_DATA[code])]),
            ),
          },
        },
      };
    }
    return responses;
  };

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

  registry.registerPath({
    method: "get",
    path: "/sdrs/{accountId}/{messageId}",
    operationId: "getSdrs",
    tags: ["SDRs"],
    summary: "Session detail records of one message",
    description: SDR_DESCRIPTION,
    request: {
      params: z.object({
        accountId: uuid("The message's account; must be the credentials' account.", EXAMPLE_ACCOUNT),
        messageId: uuid("A messageId from a send response or a listing.", EXAMPLE_MESSAGE),
      }),
    },
    responses: {
      200: {
        description: "Query Completed Successfully",
        headers: requestIdHeader,
        content: {
          "application/json": {
            schema: sdrResponse,
            example: {
              status: "QueryCompletedSuccessfully",
              statusCode: 200,
              statusMessage: "Query Completed Successfully",
              statusUri: "",
              data: {
                apiVersion: "v3",
                accountId: EXAMPLE_ACCOUNT,
                messageId: EXAMPLE_MESSAGE,
                results: [
                  {
                    delta: "00.000",
                    timestamp: "2026-11-21 22:52:12.123 UTC",
                    referenceId: "order42",
                    status: "accepted",
                    statusDetails: "",
                  },
                  { delta: "00.000", timestamp: "2026-11-21 22:52:12.123 UTC", status: "queued", statusDetails: "" },
                  { delta: "00.412", timestamp: "2026-11-21 22:52:12.535 UTC", status: "sending", statusDetails: "" },
                  {
                    delta: "00.530",
                    timestamp: "2026-11-21 22:52:12.653 UTC",
                    segmentNumber: 1,
                    status: "message_sent",
                    statusDetails: "",
                  },
                  { delta: "00.531", timestamp: "2026-11-21 22:52:12.654 UTC", status: "wait_dlr", statusDetails: "" },
                  {
                    delta: "07.250",
                    timestamp: "2026-11-21 22:52:19.373 UTC",
                    segmentNumber: 1,
                    referenceId: "order42",
                    status: "delivered",
                    statusDetails: "id:7f3a sub:001 dlvrd:001 stat:DELIVRD err:000",
                  },
                  {
                    delta: "07.251",
                    timestamp: "2026-11-21 22:52:19.374 UTC",
                    segmentNumber: 1,
                    referenceId: "order42",
                    status: "dlr_received",
                    statusDetails: "",
                  },
                  {
                    delta: "07.402",
                    timestamp: "2026-11-21 22:52:19.525 UTC",
                    status: "status_sent",
                    statusDetails: "",
                  },
                ],
              },
            },
          },
        },
      },
      ...errorResponses(
        "GET",
        ["InvalidRequest", "Unauthorized", "Forbidden", "MessageNotFound", "SystemFailure"],
        (code) => (code === "MessageNotFound" ? sdrNotFound : errorEnvelope),
      ),
    },
  });

  const numberResult = registry.register(
    "NumberResult",
    z.object({
      number: z
        .string()
        .openapi({ description: "E.164 digits without '+', as listings show them.", example: "14155550100" }),
      label: z.string().openapi({ description: 'The number\'s label; "" when none.', example: "Support line" }),
      ratePerSecond: z.number().openapi({
        description: "Messages (segments) a second that may leave this number; the account's limit caps the sum.",
        example: 1,
      }),
      createdAt: z.string().openapi({
        description: "When the number was provisioned to the account, UTC, in the listing form.",
        example: "2026-11-21 22:52:12.123 UTC",
      }),
    }),
  );

  const numbersListResponse = registry.register(
    "NumbersListResponse",
    z.object({
      ...envelopeOf("QueryCompletedSuccessfully"),
      data: z
        .object({
          apiVersion,
          total: z.number().int().openapi({ description: "Number of the account's numbers (all pages)." }),
          position: z.number().int().openapi({ description: "Offset of this page (= start)." }),
          numbers: z.array(numberResult),
        })
        .catchall(z.string())
        .openapi({ description: "The query parameters as given (strings), plus the page." }),
    }),
  );

  const numberProvisionResponse = registry.register(
    "NumberProvisionResponse",
    z.object({
      ...envelopeOf("UpdateSuccessful"),
      data: numberResult.extend({
        apiVersion,
        accountId: uuid("The account.", EXAMPLE_ACCOUNT),
        created: z.boolean().openapi({
          description: "true: provisioned now. false: the account held it already; nothing changed.",
        }),
      }),
    }),
  );

  const numberReleaseResponse = registry.register(
    "NumberReleaseResponse",
    z.object({
      ...envelopeOf("UpdateSuccessful"),
      data: z.object({
        apiVersion,
        accountId: uuid("The account.", EXAMPLE_ACCOUNT),
        number: z
          .string()
          .openapi({ description: "The released number, E.164 digits without '+'.", example: "14155550100" }),
        released: z.literal(true),
        cancelledMessages: z.number().int().min(0).openapi({
          description: "Messages that were queued from the number, now cancelled (rejected, reason FromNotOwned).",
        }),
      }),
    }),
  );

  const exampleNumber = {
    number: "14155550100",
    label: "Support line",
    ratePerSecond: 1,
    createdAt: "2026-11-21 22:52:12.123 UTC",
  };
  const updated = {
    status: "UpdateSuccessful",
    statusCode: 200,
    statusMessage: successCodes.UpdateSuccessful.statusMessage,
    statusUri: "",
  } as const;

  registry.registerPath({
    method: "get",
    path: "/numbers",
    operationId: "listNumbers",
    tags: ["Numbers"],
    summary: "List the account's telephone numbers",
    description: NUMBERS_LIST_DESCRIPTION,
    request: { query: numbersQuerySchema },
    responses: {
      200: {
        description: "Query Completed Successfully",
        headers: requestIdHeader,
        content: {
          "application/json": {
            schema: numbersListResponse,
            example: {
              status: "QueryCompletedSuccessfully",
              statusCode: 200,
              statusMessage: "Query Completed Successfully",
              statusUri: "",
              data: {
                accountId: EXAMPLE_ACCOUNT,
                apiVersion: "v3",
                total: 2,
                position: 0,
                numbers: [exampleNumber, { ...exampleNumber, number: "14155550101", label: "", ratePerSecond: 2 }],
              },
            },
          },
        },
      },
      ...errorResponses("GET", ["MissingAccountId", "InvalidRequest", "Unauthorized", "Forbidden", "SystemFailure"]),
    },
  });

  registry.registerPath({
    method: "post",
    path: "/numbers",
    operationId: "provisionNumber",
    tags: ["Numbers"],
    summary: "Provision a telephone number to the account",
    description: NUMBERS_PROVISION_DESCRIPTION,
    request: {
      body: {
        required: true,
        content: {
          "application/json": {
            schema: registry.register(
              "ProvisionNumberRequest",
              provisionRequestSchema.clone().openapi({ description: "Unknown fields are ignored." }),
            ),
          },
        },
      },
    },
    responses: {
      200: {
        description: "Update Successful: the number is the account's (provisioned now, or held already).",
        headers: requestIdHeader,
        content: {
          "application/json": {
            schema: numberProvisionResponse,
            examples: {
              created: {
                summary: "Provisioned now",
                value: {
                  ...updated,
                  data: { accountId: EXAMPLE_ACCOUNT, ...exampleNumber, created: true, apiVersion: "v3" },
                },
              },
              held: {
                summary: "The account held it already (nothing changed)",
                value: {
                  ...updated,
                  data: { accountId: EXAMPLE_ACCOUNT, ...exampleNumber, created: false, apiVersion: "v3" },
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
        "Unauthorized",
        "Forbidden",
        "SystemFailure",
      ]),
    },
  });

  registry.registerPath({
    method: "delete",
    path: "/numbers/{number}",
    operationId: "releaseNumber",
    tags: ["Numbers"],
    summary: "Release one of the account's numbers",
    description: NUMBERS_RELEASE_DESCRIPTION,
    request: {
      params: z.object({
        number: z.string().openapi({
          description: "The number to release: digits with country code, '+' optional.",
          example: "14155550100",
        }),
      }),
      query: releaseQuerySchema,
    },
    responses: {
      200: {
        description: "Update Successful: the number is released.",
        headers: requestIdHeader,
        content: {
          "application/json": {
            schema: numberReleaseResponse,
            example: {
              ...updated,
              data: {
                accountId: EXAMPLE_ACCOUNT,
                number: "14155550100",
                cancelledMessages: 0,
                released: true,
                apiVersion: "v3",
              },
            },
          },
        },
      },
      ...errorResponses("DELETE", [
        "MissingAccountId",
        "InvalidRequest",
        "Unauthorized",
        "Forbidden",
        "NotFound",
        "SystemFailure",
      ]),
    },
  });

  const generator = new OpenApiGeneratorV31(registry.definitions);
  return generator.generateDocument({
    openapi: "3.1.0",
    info: {
      title: "Parley messaging API",
      version: "v3",
      description: INFO_DESCRIPTION,
    },
    servers: [{ url: `${publicUrl()}/v3`, description: "This Parley server" }],
    security: [{ apikey: [] }, { basic: [] }],
    tags: [
      { name: "Messages", description: "Send, list; PUT and DELETE are not allowed." },
      { name: "SDRs", description: "Session detail records: the processing history of one message." },
      { name: "Numbers", description: "The account's telephone numbers: list, provision, release." },
    ],
    externalDocs: { description: "API reference with examples", url: `${publicUrl()}/docs` },
    "x-error-codes": errorCodeDocs(),
  });
}

let cached: OpenApiDocument | undefined;

/** The OpenAPI 3.1 document of /v3, built once per process (the server's public URL is fixed at start-up). */
export function buildOpenApiDocument(): OpenApiDocument {
  cached ??= buildDocument();
  return cached;
}
