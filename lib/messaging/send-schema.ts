import { z } from "zod";
import { ApiError } from "../api/api-error";
import { UUID_PATTERN } from "../db/ids";
import { mediaUrlSchema } from "./check-media-url";

// The decisions' limits for POST /v3/messages.
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
});

export type SendRequest = z.infer<typeof sendRequestSchema>;

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
  if (issue.code === "invalid_type") why = `must be ${issue.expected === "array" ? "an array" : `a ${issue.expected}`}`;
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
