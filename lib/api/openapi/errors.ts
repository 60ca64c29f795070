import { z } from "zod";
import type { OpenAPIRegistry } from "@asteasolutions/zod-to-openapi";
import { errorStatusUri } from "../envelope";
import { errorCodes, type ErrorCode } from "../error-codes";
import { apiVersion, rateLimitHeaders, requestIdHeader, type Responses } from "./shared";

// The error side of the OpenAPI document: when each code happens (also the docs page's list), the one error
// envelope, and the error responses an operation lists (grouped by HTTP status, an example per code).

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
  DailyLimitReached: {
    appliesTo: "POST /messages, POST /campaigns",
    when:
      "The send would take the account past its daily limit of messages or of segments (Settings → Guard rails; counted by the " +
      "account's day, in its time zone, when messages are accepted). The whole send is refused and nothing is stored; " +
      "`data.error_message` says which limit, how many are left and when it starts again. An admin can raise the limit.",
  },
  MessageNotCancellable: {
    appliesTo: "POST /messages/{messageId}/cancel",
    when:
      "The message is no longer waiting: it has left (sending, sent, or an outcome) or was already refused, expired or cancelled. " +
      "`data.error_message` says its status. Nothing changed.",
  },
  MessageNotFound: {
    appliesTo: "GET /sdrs, POST /messages/{messageId}/cancel",
    when:
      "No message with this messageId in this account: it does not exist or belongs to another account (the two are not told apart). " +
      "`data.results` carries the SDR error shape `{error, errorCode, errorMessage, errorUrl}`.",
  },
  NotFound: {
    appliesTo: "DELETE /numbers/{number}, /campaigns/{campaignId}, the admin API (/api/admin/accounts/{accountId}/…)",
    when:
      "The number to release is not provisioned to the account: held by nobody or by another account (the two are not told apart). " +
      "A campaign that is not the account's. In the admin API also an account, event or other record that is not there.",
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
  ProviderFailure: {
    appliesTo:
      "the admin API's carrier actions (/api/admin/accounts/{accountId}/carriers/…: numbers at the provider, search, buy, release)",
    when:
      "The carrier's own API (Twilio, Telnyx, Bandwidth, Vonage) refused or failed what Parley asked of it for the admin: " +
      "`data.error_message` gives the provider's answer in its words (its HTTP status and message). Nothing changed in Parley.",
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

export type ErrorResponses = (
  method: string,
  codes: ErrorCode[],
  schemaFor?: (code: ErrorCode) => z.ZodType | undefined,
) => Responses;

/** Registers ErrorEnvelope; answers the function that lists an operation's error responses. */
export function registerErrors(registry: OpenAPIRegistry): ErrorResponses {
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

  const errorResponses = (
    method: string,
    codes: ErrorCode[],
    schemaFor: (code: ErrorCode) => z.ZodType | undefined = () => undefined,
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
            schema: schemaFor(group[0]!) ?? errorEnvelope,
            examples: Object.fromEntries(
              group.map((code) => [code, errorExample(code, method, EXAMPLE_ERROR_DATA[code])]),
            ),
          },
        },
      };
    }
    return responses;
  };
  return errorResponses;
}
