import { z } from "zod";

// The webhook admin API's input, as zod schemas with no server imports: the routes parse with them and the portal's
// forms validate with the very same ones. What needs the server (the URL guard's DNS check, the stored header
// value) is checked by the services after these.

export const MAX_WEBHOOK_URL = 2048;

/** Why a webhook URL's form is refused (http/https, no credentials, a host), or null when it is acceptable. */
export function webhookUrlProblem(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return "the webhook URL is not a valid absolute URL";
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return "the webhook URL must use http or https";
  if (url.username || url.password) {
    return "the webhook URL may not carry credentials; use the header for authentication";
  }
  if (!url.hostname) return "the webhook URL has no host";
  if (value.length > MAX_WEBHOOK_URL) return `the webhook URL is longer than ${MAX_WEBHOOK_URL} characters`;
  return null;
}

// RFC 9110 token characters for the name; the value may not hold line breaks (header injection), controls, or
// characters beyond Latin-1, which no HTTP client can send in a header.
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]{1,100}$/;
const UNSENDABLE = /[^\t\x20-\x7e\x80-\xff]/;
export const MAX_HEADER_VALUE = 4096;

// Headers Parley sets itself: a customer header may not replace them.
export const RESERVED_HEADERS = new Set([
  "content-type",
  "content-length",
  "host",
  "user-agent",
  "connection",
  "transfer-encoding",
  "webhook-id",
  "webhook-timestamp",
  "webhook-signature",
  "parley-event",
  "parley-test",
]);

/**
 * Headers of the connection rather than the request (hop-by-hop, and Expect): the HTTP client manages them itself,
 * so a customer header may not be one of them (post-webhook.ts leaves out one saved before this rule).
 */
export const CONNECTION_HEADERS = new Set(["keep-alive", "upgrade", "expect", "te", "trailer"]);

/**
 * PUT …/webhook. Without `headerName` no header is sent. With it, `headerValue` sets the value; left out (or empty)
 * it keeps the value already stored for that header, so a form never needs the secret back to change the URL.
 */
export const webhookSettingsInput = z
  .object({
    url: z
      .string()
      .trim()
      .min(1, "url is required")
      .superRefine((value, ctx) => {
        const problem = webhookUrlProblem(value);
        if (problem) ctx.addIssue({ code: "custom", message: problem });
      }),
    // Tried at once when an attempt at `url` fails; empty or null: none.
    failoverUrl: z
      .string()
      .trim()
      .nullish()
      .superRefine((value, ctx) => {
        if (!value) return;
        const problem = webhookUrlProblem(value);
        if (problem) ctx.addIssue({ code: "custom", message: problem.replace("the webhook URL", "the failover URL") });
      }),
    headerName: z
      .string()
      .trim()
      .nullish()
      .superRefine((value, ctx) => {
        if (!value) return;
        if (!HEADER_NAME.test(value)) {
          ctx.addIssue({
            code: "custom",
            message: "not a valid HTTP header name (letters, digits and !#$%&'*+-.^_`|~, no spaces)",
          });
        } else if (RESERVED_HEADERS.has(value.toLowerCase())) {
          ctx.addIssue({ code: "custom", message: `${value} is set by Parley itself` });
        } else if (CONNECTION_HEADERS.has(value.toLowerCase())) {
          ctx.addIssue({ code: "custom", message: `${value} is a header of the connection, not of the request` });
        }
      }),
    headerValue: z
      .string()
      .nullish()
      .superRefine((value, ctx) => {
        if (!value) return;
        if (UNSENDABLE.test(value) || value.length > MAX_HEADER_VALUE) {
          ctx.addIssue({
            code: "custom",
            message: `may not hold line breaks, control characters or characters beyond Latin-1 (${MAX_HEADER_VALUE} characters at most)`,
          });
        }
      }),
  })
  .superRefine((input, ctx) => {
    if (!input.headerName?.trim() && input.headerValue?.trim()) {
      ctx.addIssue({ code: "custom", path: ["headerName"], message: "required with headerValue" });
    }
  });
export type WebhookSettingsInput = z.infer<typeof webhookSettingsInput>;

const isoDate = z
  .string()
  .refine((v) => !Number.isNaN(Date.parse(v)), "must be an ISO 8601 date-time")
  .transform((v) => new Date(v));

export const attemptQuery = z.object({
  eventId: z.string().max(100).optional(),
  messageId: z.string().max(100).optional(),
  // "failed" = attempts that were not accepted; "ok" = accepted ones.
  outcome: z.enum(["ok", "failed"]).optional(),
  since: isoDate.optional(),
  until: isoDate.optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
});
export type AttemptQuery = z.infer<typeof attemptQuery>;

/** The event kinds of the log's filter; `test` is the portal's test events (ids starting `test_`). */
export const webhookEventKinds = ["message-received", "message-status", "limit-warning", "test"] as const;

export const eventQuery = z.object({
  status: z.enum(["pending", "delivered", "failed"]).optional(),
  kind: z.enum(webhookEventKinds).optional(),
  messageId: z.string().max(100).optional(),
  since: isoDate.optional(),
  until: isoDate.optional(),
  /** How many matching events to skip (newest first), for paging. */
  start: z.coerce.number().int().min(0).max(1_000_000_000).default(0),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
  /** `attempts`: each event carries its attempts (newest first) as `attemptLog`. */
  include: z.enum(["attempts"]).optional(),
});
export type EventQuery = z.infer<typeof eventQuery>;

export const resendInput = z.union([
  z.object({ eventId: z.string().min(1).max(100) }).strict(),
  z
    .object({ since: isoDate, until: isoDate })
    .strict()
    .refine((range) => range.until > range.since, { path: ["until"], message: "must be later than since" }),
]);
export type ResendInput = z.infer<typeof resendInput>;

export const rotateQuery = z.object({ overlapHours: z.coerce.number().min(0).max(720).optional() });

/** A test event's id starts with this, so the log, the receiver and a resend can tell it from a real event. */
export const TEST_EVENT_PREFIX = "test_";
