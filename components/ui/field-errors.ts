import type { z } from "zod";
import { ApiFailure, failureText } from "./api-client";

export type FieldErrors = Record<string, string>;

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
