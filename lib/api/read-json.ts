import { ApiError } from "./api-error";
import { env } from "../env";

/** JSON nested deeper than this (objects and arrays) is InvalidJSON: no request of the API needs more than a few. */
export const MAX_JSON_DEPTH = 64;

/**
 * One pass over the raw text, before JSON.parse, without recursion: whether objects and arrays nest deeper than
 * MAX_JSON_DEPTH (which would overflow the stack of any code that walks the value) and whether a string holds the
 * escape \u0000 (NUL, which PostgreSQL text cannot store). Brackets inside strings are text.
 */
function scanJson(text: string): { tooDeep: boolean; nul: boolean } {
  let depth = 0;
  let nul = false;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c /* \ */) {
        if (text.startsWith("u0000", i + 1)) nul = true;
        i++;
      } else if (c === 0x22 /* " */) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (++depth > MAX_JSON_DEPTH) return { tooDeep: true, nul };
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) depth--;
  }
  return { tooDeep: false, nul };
}

/**
 * Reads a JSON request body in the decided order: no body is MissingJSON, unparsable text InvalidJSON. A body
 * that parses is taken whatever its Content-Type (curl's -d sends form-urlencoded unless told); one that does
 * not parse and was not declared JSON is MissingJSON. A body over MAX_BODY_BYTES is InvalidRequest; one nested
 * deeper than MAX_JSON_DEPTH is InvalidJSON; text holding NUL is InvalidRequest.
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
  const scan = scanJson(text);
  let value: unknown;
  try {
    if (scan.tooDeep) throw new ApiError("InvalidJSON", { detail: `JSON nested deeper than ${MAX_JSON_DEPTH} levels` });
    value = JSON.parse(text);
  } catch (error) {
    const declaredJson = type === "" || /^application\/([a-z0-9.+-]*\+)?json\b/.test(type);
    if (declaredJson) throw error instanceof ApiError ? error : new ApiError("InvalidJSON");
    throw new ApiError("MissingJSON", {
      detail: `the body must be JSON (Content-Type: application/json), got ${type.split(";")[0]}`,
    });
  }
  if (scan.nul) throw new ApiError("InvalidRequest", { detail: "JSON text may not contain NUL (\\u0000)" });
  return value;
}
