import type { z } from "zod";
import { ApiFailure } from "./api-client";

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
