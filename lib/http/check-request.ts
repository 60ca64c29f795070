import { ApiError } from "../api/api-error";
import { parameterAt, type RoutePattern } from "./app-route-patterns";

// What the server refuses before any route (the /v3 fast path or Next.js) sees a request, so that both answer
// alike and neither meets input it was never written for.

/** The methods Parley serves; anything else (TRACE, OPTIONS, WebDAV's PROPFIND…) is ResourceNotAllowed everywhere. */
export const SERVED_METHODS: ReadonlySet<string> = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"]);

export interface CheckedRequest {
  /** The request target in origin form (`/path?query`), without a fragment. */
  target: string;
  refusal: ApiError | null;
}

function decodeSegment(segment: string): string | null {
  try {
    const decoded = decodeURIComponent(segment);
    // PostgreSQL text cannot hold NUL; no identifier of Parley's has one.
    return decoded.includes("\0") ? null : decoded;
  } catch {
    return null;
  }
}

/**
 * The segments of a path as URL parsers read it: `\` as `/`, empty segments dropped, `.` and `..` resolved (also
 * when percent-encoded); each with its decoded text, null when it does not decode.
 */
function pathSegments(path: string): { raw: string; decoded: string | null }[] {
  const out: { raw: string; decoded: string | null }[] = [];
  for (const raw of path.replaceAll("\\", "/").split("/")) {
    const decoded = decodeSegment(raw);
    if (raw === "" || decoded === ".") continue;
    if (decoded === "..") out.pop();
    else out.push({ raw, decoded });
  }
  return out;
}

function checkPath(path: string, patterns: RoutePattern[]): ApiError | null {
  if (path.split("/").every((segment) => decodeSegment(segment) !== null)) return null;
  const decoded = pathSegments(path).map((segment) => segment.decoded);
  const index = decoded.indexOf(null);
  const param = index >= 0 ? parameterAt(patterns, decoded, index) : null;
  if (!param)
    return new ApiError("UnknownResource", { detail: "the path must be percent-encoded UTF-8 text without NUL" });
  return new ApiError("InvalidRequest", {
    detail: `'${param}' in the path must be percent-encoded UTF-8 text without NUL`,
    field: param,
  });
}

function checkQuery(query: string): ApiError | null {
  for (const [name, value] of new URLSearchParams(query)) {
    if (name.includes("\0")) return new ApiError("InvalidRequest", { detail: "a query parameter name holds NUL" });
    if (value.includes("\0")) {
      return new ApiError("InvalidRequest", { detail: `'${name}' may not contain the NUL character`, field: name });
    }
  }
  return null;
}

/** The paths whose every answer is the envelope, however spelled (`/V3/…`, `/v3%2F…`: no page is spelled so). */
export function isApiPath(path: string): boolean {
  let decoded = path;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    // as sent
  }
  return /^[/\\]+(v3|api)([/\\]|$)/i.test(decoded);
}

/**
 * An API path as it is answered: its segments as URL parsers read them, without a trailing slash. Next.js would
 * answer the other spellings (`/v3/messages/`, `/v3//messages`, `/v3/x/../messages`, `/v3\messages`) with a redirect
 * that is no envelope; Parley answers them as the path they spell.
 */
function canonicalPath(path: string): string {
  return (
    "/" +
    pathSegments(path)
      .map((segment) => segment.raw)
      .join("/")
  );
}

/**
 * The decided order: a method Parley does not serve (ResourceNotAllowed) → a target that is no path
 * (UnknownResource) → a path segment that is not percent-encoded UTF-8 or holds NUL (InvalidRequest naming the
 * route's parameter, else UnknownResource) → an API path whose dot segments lead out of /v3 or /api
 * (UnknownResource) → a query parameter holding NUL (InvalidRequest naming it).
 */
export function checkRequest(method: string, rawTarget: string, patterns: RoutePattern[]): CheckedRequest {
  // Absolute form (`GET http://host/path`), which HTTP/1.1 servers must accept, is answered as the path it names.
  let target = rawTarget.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, "") || "/";
  const hash = target.indexOf("#");
  if (hash >= 0) target = target.slice(0, hash) || "/";
  const refuse = (refusal: ApiError): CheckedRequest => ({ target, refusal });
  if (!SERVED_METHODS.has(method)) {
    return refuse(
      new ApiError("ResourceNotAllowed", { detail: "the methods served are GET, HEAD, POST, PUT, PATCH and DELETE" }),
    );
  }
  if (!target.startsWith("/"))
    return refuse(new ApiError("UnknownResource", { detail: "the request target must be a path" }));
  const at = target.indexOf("?");
  const path = at >= 0 ? target.slice(0, at) : target;
  const query = at >= 0 ? target.slice(at) : "";
  // Most paths hold no escape, dot segment, backslash or empty segment: nothing to decode or rewrite.
  if (/[%\\]|\/\/|\/\.|.\/$/.test(path)) {
    const badPath = checkPath(path, patterns);
    if (badPath) return refuse(badPath);
    // Any spelling of an API path is answered as the API path; one that starts as an API path stays one.
    const canonical = canonicalPath(path);
    if (isApiPath(canonical)) target = canonical + query;
    else if (isApiPath(path)) {
      return refuse(new ApiError("UnknownResource", { detail: "the path leads out of the API" }));
    }
  }
  // NUL reaches a query only as %00 (node:http refuses the raw byte).
  const badQuery = query.includes("%00") ? checkQuery(query.slice(1)) : null;
  return badQuery ? refuse(badQuery) : { target, refusal: null };
}
