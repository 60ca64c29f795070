import type { z } from "zod";
import { ApiFailure, failureText } from "./api-client";

// Form errors beside their fields, from the two places they come from: the zod schema the route parses with (run
// in the browser first), and the server's refusal naming a field (what only the server can check).

export type FieldErrors = Record<string, string>;

function sentence(text: string): string {
  return text ? text[0]!.toUpperCase() + text.slice(1) : text;
}

/** The first problem of each field of a failed safeParse, keyed by the field's name ("" for the whole form). */
export function zodFieldErrors(error: z.ZodError): FieldErrors {
  const errors: FieldErrors = {};
  for (const issue of error.issues) {
    const field = String(issue.path[0] ?? "");
    errors[field] ??= sentence(issue.message);
  }
  return errors;
}

/**
 * A server refusal as field errors when it names a field ("Invalid Request: url: …" → {url: "…"}), or under ""
 * for the form as a whole.
 */
export function failureFieldErrors(error: unknown): FieldErrors {
  if (!(error instanceof ApiFailure)) return { "": error instanceof Error ? error.message : String(error) };
  if (!error.field) return { "": error.message };
  let text = error.message.replace(/^Invalid Request: /, "");
  if (text.startsWith(`${error.field}: `)) text = text.slice(error.field.length + 2);
  return { [error.field]: sentence(text) };
}

// The same two sources for forms that keep the server's lower-case wording and show a refusal naming another
// field in a Notice (keys, users, settings).

/** A zod result's first problem per top-level field, for the form's fields ({} when it parsed). */
export function fieldErrors(result: z.ZodSafeParseResult<unknown>): FieldErrors {
  if (result.success) return {};
  const errors: FieldErrors = {};
  for (const issue of result.error.issues) {
    const field = String(issue.path[0] ?? "");
    if (field && !(field in errors)) errors[field] = issue.message;
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

/** The server's refusal as a field error when it names one of the form's fields, else null (show it in a Notice). */
export function serverFieldError(error: unknown, fields: readonly string[]): FieldErrors | null {
  if (!(error instanceof ApiFailure) || !error.field) return null;
  const field = error.field.split(".")[0]!;
  if (!fields.includes(field)) return null;
  // The envelope's words are "Invalid Request: field: why"; beside the field, "why" is enough.
  const why = failureReason(error).replace(new RegExp(`^${field}:\\s*`), "");
  return { [field]: why };
}
