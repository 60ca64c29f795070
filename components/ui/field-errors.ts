import type { z } from "zod";
import { ApiFailure, failureText } from "./api-client";

// Form errors beside their fields, from the two places they come from: the zod schema the route parses with (run
// in the browser first), and the server's refusal naming a field (what only the server can check). Anything that
// has no field on the form is keyed "" and shown in a Notice.

export type FieldErrors = Record<string, string>;

export interface Wording {
  /**
   * Start each text with a capital letter (the webhook and opt-out forms). Off: the schema's and the server's words
   * as they are, lower-case (keys, users, settings, numbers).
   */
  sentence?: boolean;
}

function sentence(text: string): string {
  return text ? text[0]!.toUpperCase() + text.slice(1) : text;
}

/** The first problem of each field of a safeParse ({} when it parsed), keyed by the field's name ("" for the form). */
export function zodFieldErrors(result: z.ZodSafeParseResult<unknown>, wording: Wording = {}): FieldErrors {
  if (result.success) return {};
  const errors: FieldErrors = {};
  for (const issue of result.error.issues) {
    const field = String(issue.path[0] ?? "");
    errors[field] ??= wording.sentence === false ? issue.message : sentence(issue.message);
  }
  return errors;
}

/**
 * Why the server refused, without the envelope's status words ("Invalid Request: a user … exists already" → "a user
 * … exists already"); other failures as failureText words them.
 */
export function failureReason(error: unknown): string {
  if (error instanceof ApiFailure && error.code === "InvalidRequest") return error.message.replace(/^[^:]*:\s*/, "");
  return failureText(error);
}

/**
 * A server refusal as field errors: beside the field it names ("Invalid Request: url: …" → {url: "…"}) when the form
 * has that field (any field when `fields` is not given; a nested field counts as its top-level one), else under ""
 * in failureText's words.
 */
export function serverFieldErrors(
  error: unknown,
  { fields, ...wording }: Wording & { fields?: readonly string[] } = {},
): FieldErrors {
  if (!(error instanceof ApiFailure) || !error.field) return { "": failureText(error) };
  const field = fields ? error.field.split(".")[0]! : error.field;
  if (fields && !fields.includes(field)) return { "": failureText(error) };
  // The server's own words are "field: why" (lib/api/parse-input.ts); beside the field, "why" is enough.
  let why = error.detail ?? failureReason(error);
  if (why.startsWith(`${field}: `)) why = why.slice(field.length + 2);
  return { [field]: wording.sentence === false ? why : sentence(why) };
}
