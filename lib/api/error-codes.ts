// The one table of envelope codes. statusMessage texts are the seed's, word for word; the codes the seed does not
// list (Unauthorized, Forbidden, MessageNotFound, IdempotencyConflict) are the API decisions', and TooManyRequests
// (the per-key request rate limit) is Parley's own.
export const errorCodes = {
  MissingAccountId: { statusCode: 400, statusMessage: "'accountId' is required" },
  MissingFrom: { statusCode: 400, statusMessage: "'from' is required" },
  MissingTo: { statusCode: 400, statusMessage: "'to' or 'toArray' is required" },
  MissingBody: { statusCode: 400, statusMessage: "'body' is required (not required when media is sent)" },
  InvalidNumber: { statusCode: 400, statusMessage: "'from' is not valid number" },
  MissingJSON: { statusCode: 400, statusMessage: "JSON required" },
  InvalidJSON: { statusCode: 400, statusMessage: "The JSON request is not valid." },
  ResourceNotAllowed: { statusCode: 400, statusMessage: "Resource not allowed on {method}" },
  UnknownResource: { statusCode: 400, statusMessage: "Unknown resource on {method}" },
  InvalidRequest: { statusCode: 400, statusMessage: "Invalid Request" },
  Unauthorized: { statusCode: 401, statusMessage: "Missing or invalid credentials" },
  Forbidden: { statusCode: 403, statusMessage: "Credentials do not grant access to this account" },
  MessageNotFound: { statusCode: 404, statusMessage: "Message not found" },
  // Admin API only (/api/admin/*): the seed has no code for these.
  NotFound: { statusCode: 404, statusMessage: "Resource not found" },
  // A state-changing portal request that a page on another origin made the browser send (docs/SECURITY.md).
  CrossSiteRequest: { statusCode: 403, statusMessage: "Cross-site request refused" },
  // A portal request whose body is not declared JSON (a cross-site form can only send form or text bodies).
  UnsupportedMediaType: {
    statusCode: 415,
    statusMessage: "The request body must be JSON (Content-Type: application/json)",
  },
  IdempotencyConflict: {
    statusCode: 409,
    statusMessage: "Idempotency-Key was already used with a different request body",
  },
  TooManyRequests: { statusCode: 429, statusMessage: "Too many requests" },
  // POST /v3/messages/{messageId}/cancel on a message that is no longer waiting (Parley's own).
  MessageNotCancellable: {
    statusCode: 409,
    statusMessage: "Only a held, scheduled or queued message that has not started to leave can be cancelled",
  },
  // A send past one of the account's daily limits (lib/guard/daily-limits.ts; Parley's own).
  DailyLimitReached: { statusCode: 429, statusMessage: "The account's daily sending limit is reached" },
  // Admin API only: a carrier's API (Twilio, Telnyx…) refused or failed what Parley asked of it on an admin's behalf.
  ProviderFailure: { statusCode: 502, statusMessage: "The carrier's API refused or failed the request" },
  // A listing stopped by its timeout (LISTING_TIMEOUT_SECONDS): the seed has no code for it.
  QueryTimeout: { statusCode: 503, statusMessage: "The query took too long" },
  SystemFailure: { statusCode: 500, statusMessage: "General System Failure" },
} as const satisfies Record<string, { statusCode: number; statusMessage: string }>;

export type ErrorCode = keyof typeof errorCodes;

export const successCodes = {
  MessageCreateSuccessful: { statusCode: 200, statusMessage: "Message Create Successful" },
  QueryCompletedSuccessfully: { statusCode: 200, statusMessage: "Query Completed Successfully" },
  UpdateSuccessful: { statusCode: 200, statusMessage: "Update Successful" },
  MediaUploadSuccessful: { statusCode: 200, statusMessage: "Media Upload Successful" },
} as const;

export type SuccessCode = keyof typeof successCodes;
