import { UUID_PATTERN } from "../db/ids";
import { ApiError } from "./api-error";

/**
 * The `accountId` a /v3 request names (in its body or query) as the send does: absent or empty is MissingAccountId,
 * anything but a UUID is InvalidRequest naming it. Whether it is the credentials' account is assertAccount's.
 */
export function accountIdOf(value: unknown): string {
  if (value === undefined || value === null || value === "") throw new ApiError("MissingAccountId");
  if (typeof value !== "string" || !UUID_PATTERN.test(value)) {
    throw new ApiError("InvalidRequest", { detail: "'accountId' must be a UUID", field: "accountId" });
  }
  return value;
}
