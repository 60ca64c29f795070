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

/** Resolves `.` and `..` segments (also when percent-encoded) as URL parsers do, keeping undecodable ones. */
function resolveDotSegments(segments: (string | null)[]): (string | null)[] {
  const out: (string | null)[] = [];
  for (const segment of segments) {
    if (segment === ".") continue;
    if (segment === "..") out.pop();
    else out.push(segment);
  }
  return out;
}

function checkPath(path: string, patterns: RoutePattern[]): ApiError | null {
  const raw = path.split("/").slice(1);
  const decoded = raw.map(decodeSegment);
  if (!decoded.includes(null)) return null;
  const resolved = resolveDotSegments(decoded);
  const index = resolved.indexOf(null);
  const param = index >= 0 ? parameterAt(patterns, resolved, index) : null;
  if (param) {
    return new ApiError("InvalidRequest", {
      detail: `'${param}' in the path must be percent-encoded UTF-8 text without NUL`,
      field: param,
    });
  }
  return new ApiError("UnknownResource", { detail: "the path must be percent-encoded UTF-8 text without NUL" });
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

/**
 * The decided order: a method Parley does not serve (ResourceNotAllowed) → a target that is no path
 * (UnknownResource) → a path segment that is not percent-encoded UTF-8 or holds NUL (InvalidRequest naming the
 * route's parameter, else UnknownResource) → a query parameter holding NUL (InvalidRequest naming it).
 */
export function checkRequest(method: string, rawTarget: string, patterns: RoutePattern[]): CheckedRequest {
  // Absolute form (`GET http://host/path`), which HTTP/1.1 servers must accept, is answered as the path it names.
  let target = rawTarget.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, "") || "/";
  const hash = target.indexOf("#");
  if (hash >= 0) target = target.slice(0, hash) || "/";
  if (!SERVED_METHODS.has(method)) {
    const detail = "the methods served are GET, HEAD, POST, PUT, PATCH and DELETE";
    return { target, refusal: new ApiError("ResourceNotAllowed", { detail }) };
  }
  if (!target.startsWith("/")) {
    return { target, refusal: new ApiError("UnknownResource", { detail: "the request target must be a path" }) };
  }
  const query = target.indexOf("?");
  const path = query >= 0 ? target.slice(0, query) : target;
  const refusal = checkPath(path, patterns) ?? (query >= 0 ? checkQuery(target.slice(query + 1)) : null);
  return { target, refusal };
}
