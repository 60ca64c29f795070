import { z } from "zod";
import { ApiError } from "../api/api-error";
import { UUID_PATTERN } from "../db/ids";

// The decisions' limits for POST /v3/messages.
export const SEND_LIMITS = {
  maxDestinations: 1000,
  maxBodyChars: 1600,
  maxMedia: 10,
  maxUserFieldChars: 100,
} as const;

const httpUrl = z
  .string()
  .max(2048)
  .refine((value) => {
    try {
      const url = new URL(value);
      return url.protocol === "http:" || url.protocol === "https:";
    } catch {
      return false;
    }
  }, "must be an http(s) URL");

// Types and limits; the presence checks come first, in the decided order, in parseSendRequest.
export const sendRequestSchema = z.object({
  accountId: z.string().regex(UUID_PATTERN, "must be a UUID"),
  from: z.string().max(32),
  to: z.string().max(64).optional(),
  toArray: z.array(z.string().max(64)).min(1).max(SEND_LIMITS.maxDestinations).optional(),
  body: z.string().max(SEND_LIMITS.maxBodyChars).optional(),
  media: z.array(httpUrl).max(SEND_LIMITS.maxMedia).optional(),
  conversational: z.boolean().optional(),
  bulk: z.boolean().optional(),
  optLogic: z.boolean().optional(),
  referenceId: z
    .string()
    .regex(/^[A-Za-z0-9]{1,40}$/, "must be 1 to 40 letters or digits")
    .optional(),
  userId: z.string().max(SEND_LIMITS.maxUserFieldChars).optional(),
  userType: z.string().max(SEND_LIMITS.maxUserFieldChars).optional(),
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
  if (cleaned.body === "") delete cleaned.body;
  const parsed = sendRequestSchema.safeParse(cleaned);
  if (!parsed.success) {
    const { field, detail } = describeIssue(parsed.error.issues[0]!);
    throw new ApiError("InvalidRequest", { detail, field });
  }
  return parsed.data;
}
