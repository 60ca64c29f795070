import { ApiError } from "./api-error";
import { env } from "../env";

/**
 * Reads a JSON request body in the decided order: no body is MissingJSON, unparsable text InvalidJSON. A body
 * that parses is taken whatever its Content-Type (curl's -d sends form-urlencoded unless told); one that does
 * not parse and was not declared JSON is MissingJSON. A body over MAX_BODY_BYTES is InvalidRequest.
 */
export async function readJson(req: Request): Promise<unknown> {
  const limit = env().MAX_BODY_BYTES;
  const declared = Number(req.headers.get("content-length") ?? "NaN");
  if (Number.isFinite(declared) && declared > limit) {
    throw new ApiError("InvalidRequest", { detail: `the request body is larger than ${limit} bytes` });
  }
  const type = (req.headers.get("content-type") ?? "").toLowerCase();
  const text = await req.text();
  if (Buffer.byteLength(text) > limit) {
    throw new ApiError("InvalidRequest", { detail: `the request body is larger than ${limit} bytes` });
  }
  if (text.trim() === "") throw new ApiError("MissingJSON");
  try {
    return JSON.parse(text);
  } catch {
    const declaredJson = type === "" || /^application\/([a-z0-9.+-]*\+)?json\b/.test(type);
    if (declaredJson) throw new ApiError("InvalidJSON");
    throw new ApiError("MissingJSON", {
      detail: `the body must be JSON (Content-Type: application/json), got ${type.split(";")[0]}`,
    });
  }
}
