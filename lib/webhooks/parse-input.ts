import type { z } from "zod";
import { ApiError } from "../api/api-error";

/** Validates admin API input with a zod schema; the first problem is an InvalidRequest naming its field. */
export function parseInput<T extends z.ZodType>(schema: T, value: unknown): z.infer<T> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const field = issue.path.join(".") || undefined;
  throw new ApiError("InvalidRequest", { detail: field ? `${field}: ${issue.message}` : issue.message, field });
}

/** A query string as a plain object (repeated keys: the last wins). */
export function queryObject(req: Request): Record<string, string> {
  return Object.fromEntries(new URL(req.url).searchParams);
}
