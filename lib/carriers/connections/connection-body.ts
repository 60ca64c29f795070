import { ApiError } from "../../api/api-error";

/** An admin request's JSON body as an object (anything else is InvalidRequest). */
export function objectBody(raw: unknown): Record<string, unknown> {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw))
    throw new ApiError("InvalidRequest", { detail: "the body must be a JSON object" });
  return raw as Record<string, unknown>;
}

/** The kind's fields of a connection request ({fields: {…}}); absent: none. */
export function fieldsOf(body: Record<string, unknown>): Record<string, unknown> {
  const fields = body.fields;
  if (fields === undefined) return {};
  if (typeof fields !== "object" || fields === null || Array.isArray(fields))
    throw new ApiError("InvalidRequest", { detail: "fields must be an object of the kind's fields", field: "fields" });
  return fields as Record<string, unknown>;
}
