import type { z } from "zod";
import { ApiError } from "./api-error";

/**
 * Validates admin API input with a zod schema; the first problem is an InvalidRequest naming its field. Unknown
 * fields of a strict object are named with the fields it expects.
 */
export function parseInput<T extends z.ZodType>(schema: T, value: unknown): z.infer<T> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const field = issue.path.join(".") || undefined;
  const shape = "shape" in schema ? (schema.shape as Record<string, unknown>) : null;
  const detail =
    issue.code === "unrecognized_keys" && shape
      ? `unknown field(s): ${issue.keys.join(", ")}; expected ${Object.keys(shape).join(", ")}`
      : field
        ? `${field}: ${issue.message}`
        : issue.message;
  throw new ApiError("InvalidRequest", { detail, field });
}

/** A query string as a plain object (repeated keys: the last wins). */
export function queryObject(req: Request): Record<string, string> {
  return Object.fromEntries(new URL(req.url).searchParams);
}
