import { z } from "zod";
import { ApiError } from "../api/api-error";
import { UUID_PATTERN } from "../db/ids";
import { mediaUrlSchema } from "./check-media-url";

// The decisions' limits for POST /v3/messages.
const VALIDITY_LIMITS_MIN = 30;
const VALIDITY_LIMITS_MAX = 36 * 3600;

export const SEND_LIMITS = {
  maxDestinations: 1000,
  maxBodyChars: 1600,
  maxMedia: 10,
  maxUserFieldChars: 100,
} as const;

// What a TN may look like in a request (the decision: digits with country code, '+' optional). Documentation
// only: validity is libphonenumber-js's call in send-message.ts, so an invalid `to` rejects only its entry.
const tnMeta = (description: string, example?: string) => ({ description, ...(example ? { example } : {}) });

// Types and limits; the presence checks come first, in the decided order, in parseSendRequest.
// The .meta() calls are OpenAPI documentation (lib/api/openapi/) and change no validation.
export const sendRequestSchema = z.object({
  accountId: z
    .string()
    .regex(UUID_PATTERN, "must be a UUID")
    // UUID_PATTERN is case-insensitive; JSON Schema patterns have no flags, so the documented one spells both cases.
    .meta({
      format: "uuid",
      pattern: "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[1-8][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}$",
      description:
        "The sending account (UUID). Must be the account of the credentials, else 403 Forbidden. Absent: MissingAccountId.",
      example: "0195f3a2-7c4e-7b1a-9d2e-4f5a6b7c8d9e",
    }),
  from: z
    .string()
    .max(32)
    .meta(
      tnMeta(
        "Originating TN: digits with country code, '+' optional. Must be a valid E.164 number (else 400 InvalidNumber) and provisioned to the account (else a 200 envelope with every entry rejected, reason FromNotOwned). Absent: MissingFrom.",
        "14155550100",
      ),
    ),
  to: z
    .string()
    .max(64)
    .meta(
      tnMeta(
        "Single destination TN. Exactly one of `to` / `toArray`. An invalid number rejects the entry (reason InvalidDestination), not the request.",
        "12125550123",
      ),
    )
    .optional(),
  toArray: z
    .array(z.string().max(64).meta(tnMeta("A destination TN.")))
    .min(1)
    .max(SEND_LIMITS.maxDestinations)
    .meta({
      description: `Several destination TNs, 1 to ${SEND_LIMITS.maxDestinations}. Exactly one of \`to\` / \`toArray\`. One message (one messageId) per entry, in request order; a repeated number is sent once and the repeat rejected (reason DuplicateDestination).`,
      example: ["12125550123", "+442071838750"],
    })
    .optional(),
  body: z
    .string()
    .max(SEND_LIMITS.maxBodyChars)
    .meta({
      description: `Message text, at most ${SEND_LIMITS.maxBodyChars} characters (longer text is refused, not cut). At least one of \`body\` / \`media\`.`,
      example: "Your order 42 has shipped.",
    })
    .optional(),
  media: z
    .array(mediaUrlSchema)
    .max(SEND_LIMITS.maxMedia)
    .meta({
      description: `MMS attachments: at most ${SEND_LIMITS.maxMedia} absolute http:// or https:// URLs (any other scheme, a URL without a host or with a user name or password is refused: InvalidRequest naming the entry, e.g. 'media[1]'). Non-empty media makes the message an MMS. At least one of \`body\` / \`media\`.`,
      example: ["https://example.com/label.png"],
    })
    .optional(),
  conversational: z
    .boolean()
    .meta({
      description: "Show the message in the portal's conversations as if a person had typed it.",
      default: false,
    })
    .optional(),
  bulk: z
    .boolean()
    .meta({
      description:
        "Bulk processing (lower priority, at most half the account's rate, only inside the bulk window). Default false for `to` or a one-entry `toArray`, true for two or more entries.",
    })
    .optional(),
  optLogic: z
    .boolean()
    .meta({
      description:
        "Opt in/out processing: appends the account's opt-out footer to the first message to a destination and again after 30 days, so `body` (and `numSegments`) in the response may be larger; reports `optStatus`. Opted-out destinations are refused either way.",
      default: false,
    })
    .optional(),
  referenceId: z
    .string()
    .regex(/^[A-Za-z0-9]{1,40}$/, "must be 1 to 40 letters or digits")
    .meta({
      description: "Your tracking text: 1 to 40 letters or digits, no spaces or punctuation.",
      example: "order42",
    })
    .optional(),
  userId: z
    .string()
    .max(SEND_LIMITS.maxUserFieldChars)
    .meta({ description: `The sending user, for tracking only; at most ${SEND_LIMITS.maxUserFieldChars} characters.` })
    .optional(),
  userType: z
    .string()
    .max(SEND_LIMITS.maxUserFieldChars)
    .meta({
      description: `The type of sending user, for tracking only; at most ${SEND_LIMITS.maxUserFieldChars} characters.`,
    })
    .optional(),
  sendAt: z
    .string()
    .max(40)
    .meta({
      description:
        "Send later: an ISO 8601 date-time with offset, at least 60 seconds and at most 35 days ahead. The answer is the usual one; the message is listed `scheduled` (SDRs `accepted`, `scheduled`) until then, then joins the paced queue. Cancel it with POST /messages/{messageId}/cancel.",
      example: "2026-12-01T09:30:00+01:00",
    })
    .optional(),
  validitySeconds: z
    .number()
    .int("must be a whole number of seconds")
    .min(VALIDITY_LIMITS_MIN, `must be at least ${VALIDITY_LIMITS_MIN} seconds`)
    .max(VALIDITY_LIMITS_MAX, `must be at most ${VALIDITY_LIMITS_MAX} seconds (36 hours)`)
    .meta({
      description:
        "How long the message may wait, in seconds (30 to 129600), from when it joins the queue (now, or its sendAt): one not handed to the carrier by then ends `expired` and is never sent. Passed on to SMPP carriers as validity_period and to Twilio, Bandwidth and Vonage.",
      example: 300,
    })
    .optional(),
  smartEncoding: z
    .boolean()
    .meta({
      description:
        "Replace look-alike characters (curly quotes, long dashes, no-break spaces, the ellipsis…) with GSM-7 ones before counting segments; the answer's `body` and `numSegments` show the result. Default: the account's setting.",
    })
    .optional(),
});

export type SendRequest = z.infer<typeof sendRequestSchema>;

// An ISO 8601 date-time with its offset (Z or ±hh:mm): a time without one would be read in some server's zone.
const ISO_WITH_OFFSET =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-](\d{2}):(\d{2}))$/i;

/** The instant of an ISO 8601 date-time with offset, or null when the text is not one (or names no real day). */
export function parseIsoWithOffset(text: string): number | null {
  const match = ISO_WITH_OFFSET.exec(text);
  if (!match) return null;
  const [, year, month, day, hour, minute, second, offsetHours, offsetMinutes] = match.map(Number);
  const calendar = new Date(Date.UTC(year!, month! - 1, day!));
  if (calendar.getUTCMonth() !== month! - 1 || calendar.getUTCDate() !== day) return null;
  if (hour! > 23 || minute! > 59 || (second ?? 0) > 59) return null;
  if ((offsetHours ?? 0) > 23 || (offsetMinutes ?? 0) > 59) return null;
  const at = Date.parse(text.toUpperCase());
  return Number.isNaN(at) ? null : at;
}

/** How far ahead a scheduled send may be (Twilio's SendAt takes the same window). */
export const SCHEDULE_LIMITS = { minAheadSeconds: 60, maxAheadDays: 35 } as const;
/** The range of validitySeconds: 30 s to 36 h. */
export const VALIDITY_LIMITS = { minSeconds: VALIDITY_LIMITS_MIN, maxSeconds: VALIDITY_LIMITS_MAX } as const;

/** The send's `sendAt` as an instant, checked against the window from `now`; null when the send is not scheduled. */
export function scheduledTime(request: Pick<SendRequest, "sendAt">, now: number): Date | null {
  if (request.sendAt === undefined) return null;
  const at = parseIsoWithOffset(request.sendAt);
  const refuse = (why: string) => new ApiError("InvalidRequest", { detail: `'sendAt' ${why}`, field: "sendAt" });
  if (at === null) {
    throw refuse(
      "must be an ISO 8601 date-time with an offset, such as 2026-12-01T09:30:00+01:00 or 2026-12-01T08:30:00Z",
    );
  }
  if (at - now < SCHEDULE_LIMITS.minAheadSeconds * 1000) {
    throw refuse(`must be at least ${SCHEDULE_LIMITS.minAheadSeconds} seconds ahead (it is ${aheadWords(at - now)})`);
  }
  if (at - now > SCHEDULE_LIMITS.maxAheadDays * 86_400_000) {
    throw refuse(`must be at most ${SCHEDULE_LIMITS.maxAheadDays} days ahead`);
  }
  return new Date(at);
}

function aheadWords(ms: number): string {
  const seconds = Math.round(ms / 1000);
  if (seconds < 0) return `${-seconds} seconds in the past`;
  return `${seconds} seconds ahead`;
}

function absent(value: unknown): boolean {
  return value === undefined || value === null || value === "";
}

function absentList(value: unknown): boolean {
  return absent(value) || (Array.isArray(value) && value.length === 0);
}

function describeIssue(issue: z.core.$ZodIssue): { field: string; detail: string } {
  const field = String(issue.path[0] ?? "body");
  const where = issue.path.length > 1 ? `'${field}[${String(issue.path[1])}]'` : `'${field}'`;
  let why = issue.message;
  // An integer check's own words ("must be a whole number of seconds") say more than "must be a int".
  if (issue.code === "invalid_type" && issue.expected !== "int")
    why = `must be ${issue.expected === "array" ? "an array" : `a ${issue.expected}`}`;
  else if (issue.code === "too_big" && issue.origin === "string") why = `must be at most ${issue.maximum} characters`;
  else if (issue.code === "too_big" && issue.origin === "array") why = `must have at most ${issue.maximum} entries`;
  else if (issue.code === "too_small" && issue.origin === "array") why = `must have at least ${issue.minimum} entry`;
  return { field, detail: `${where} ${why}` };
}

/**
 * The decided check order: body is an object → accountId → from → to/toArray → body/media → types and limits.
 * (JSON presence and syntax are checked before this by the request reader.) Unknown fields are ignored.
 */
export function parseSendRequest(raw: unknown): SendRequest {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    throw new ApiError("InvalidRequest", { detail: "the request body must be a JSON object" });
  }
  const input = raw as Record<string, unknown>;
  if (absent(input.accountId)) throw new ApiError("MissingAccountId");
  if (absent(input.from)) throw new ApiError("MissingFrom");
  if (absent(input.to) && absent(input.toArray)) throw new ApiError("MissingTo");
  if (absent(input.body) && absentList(input.media)) throw new ApiError("MissingBody");
  if (!absent(input.to) && !absent(input.toArray)) {
    throw new ApiError("InvalidRequest", { detail: "Only one of 'to' or 'toArray' is allowed", field: "toArray" });
  }
  const cleaned: Record<string, unknown> = {};
  for (const key of Object.keys(sendRequestSchema.shape)) {
    // null stands for "not given" in optional fields, as many JSON encoders write it.
    if (input[key] !== null && input[key] !== undefined) cleaned[key] = input[key];
  }
  // The presence checks above count "" as not given for these; so must the rest (an empty `to` beside a toArray
  // would otherwise win over it in sendMessages).
  for (const key of ["to", "toArray", "body", "media"]) if (cleaned[key] === "") delete cleaned[key];
  const parsed = sendRequestSchema.safeParse(cleaned);
  if (!parsed.success) {
    const { field, detail } = describeIssue(parsed.error.issues[0]!);
    throw new ApiError("InvalidRequest", { detail, field });
  }
  return parsed.data;
}
