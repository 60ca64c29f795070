// The HTTP answer for a stored medium at /media/{id}, decided without touching the store: the status, the headers and
// which bytes to send. A medium never changes under its id, so its answers may be cached for good; and since anyone
// holding the link can open it, the answer is built so that no medium can act as a page of Parley's own origin
// (nosniff, a sandboxing CSP, anything but image/audio/video downloaded rather than shown).

export interface MediaResponsePlan {
  status: 200 | 206 | 416;
  headers: Record<string, string>;
  /** The inclusive byte range to send (206); null: the whole medium (200), or nothing (416, HEAD). */
  range: { start: number; end: number } | null;
}

const CACHE_CONTROL = "private, max-age=31536000, immutable";
const CONTENT_SECURITY_POLICY = "default-src 'none'; sandbox; frame-ancestors 'none'";

// Shown in the browser: pictures, sound, film. Never SVG, which is a document that can carry script.
const SHOWN_INLINE = /^(image\/(?!svg)|audio\/|video\/)/i;
// type "/" subtype, optional parameters; no spaces or line breaks that could end the header.
const CONTENT_TYPE =
  /^[A-Za-z0-9][\w!#$&^.+-]*\/[A-Za-z0-9][\w!#$&^.+-]*(\s*;\s*[\w!#$&^.+-]+=("[^"\r\n]*"|[\w!#$&^.+-]+))*$/;

type RangeAsked = { kind: "none" } | { kind: "one"; start: number; end: number } | { kind: "unsatisfiable" };

/** The status, headers and byte range of the answer to a GET or HEAD of a medium. */
export function planMediaResponse(input: {
  method: "GET" | "HEAD";
  contentType: string;
  size: number;
  fileName: string;
  range: string | null;
}): MediaResponsePlan {
  const { method, size } = input;
  if (!Number.isSafeInteger(size) || size < 0) throw new RangeError(`${size} is not a medium's size`);
  const common = {
    "Accept-Ranges": "bytes",
    "X-Content-Type-Options": "nosniff",
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
  };
  // RFC 9110 §14.2: Range is defined for GET only; a HEAD is answered as the GET without Range would be.
  const asked = method === "GET" && input.range !== null ? parseRange(input.range, size) : { kind: "none" as const };
  if (asked.kind === "unsatisfiable") {
    return {
      status: 416,
      headers: { ...common, "Content-Range": `bytes */${size}`, "Content-Length": "0" },
      range: null,
    };
  }
  const contentType = CONTENT_TYPE.test(input.contentType) ? input.contentType : "application/octet-stream";
  const headers: Record<string, string> = {
    ...common,
    "Content-Type": contentType,
    "Content-Length": String(size),
    "Cache-Control": CACHE_CONTROL,
    "Content-Disposition": contentDisposition(contentType, input.fileName),
  };
  if (asked.kind === "none") return { status: 200, headers, range: null };
  const { start, end } = asked;
  headers["Content-Length"] = String(end - start + 1);
  headers["Content-Range"] = `bytes ${start}-${end}/${size}`;
  return { status: 206, headers, range: { start, end } };
}

/**
 * One Range header against a medium of `size` bytes (RFC 9110 §14.1.2): "bytes=a-b", "bytes=a-", "bytes=-n".
 * Anything Parley does not answer in part is answered whole ("none"): other units, malformed values, and several
 * ranges at once (a multipart answer no media player needs).
 */
function parseRange(header: string, size: number): RangeAsked {
  const match = /^\s*bytes\s*=\s*(.*?)\s*$/i.exec(header);
  if (!match || match[1] === undefined || match[1].includes(",")) return { kind: "none" };
  const spec = /^(\d*)-(\d*)$/.exec(match[1]);
  if (!spec) return { kind: "none" };
  const [, first = "", last = ""] = spec;
  // An empty medium has no byte to point at: it is answered whole, all zero bytes of it.
  if (size === 0) return { kind: "none" };
  if (first === "") {
    if (last === "") return { kind: "none" };
    const length = Number(last);
    if (length === 0) return { kind: "unsatisfiable" };
    return { kind: "one", start: Math.max(0, size - length), end: size - 1 };
  }
  const start = Number(first);
  // "bytes=9-0" is malformed (ignored), not unsatisfiable.
  if (last !== "" && Number(last) < start) return { kind: "none" };
  if (start >= size) return { kind: "unsatisfiable" };
  return { kind: "one", start, end: last === "" ? size - 1 : Math.min(Number(last), size - 1) };
}

/** "inline" or "attachment", with the file name both as plain ASCII and, exactly, as RFC 5987 UTF-8 (RFC 6266). */
function contentDisposition(contentType: string, fileName: string): string {
  const name = safeFileName(fileName);
  const disposition = SHOWN_INLINE.test(contentType) ? "inline" : "attachment";
  return `${disposition}; filename="${asciiFileName(name)}"; filename*=UTF-8''${encodeRfc5987(name)}`;
}

/**
 * The name a browser may save the medium as: its last path segment, without control characters or the Unicode
 * direction overrides that make "invoice\u202Efdp.exe" read as "invoiceexe.pdf"; "media" when nothing is left.
 */
function safeFileName(fileName: string): string {
  const last = fileName.split(/[/\\]/).pop() ?? "";
  // eslint-disable-next-line no-control-regex
  const cleaned = last.replace(/[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, "").trim();
  const limited = Array.from(cleaned).slice(0, 150).join("");
  return limited === "" || limited === "." || limited === ".." ? "media" : limited;
}

/** The name in printable ASCII for clients that ignore filename*: accents dropped, anything else "_". */
function asciiFileName(name: string): string {
  return name
    .normalize("NFKD")
    .replace(/\p{M}/gu, "")
    .replace(/[^\x20-\x7e]/gu, "_")
    .replace(/["\\%]/g, "_");
}

/** RFC 5987 value-chars: encodeURIComponent leaves ' ( ) * as they are, which attr-char does not allow. */
function encodeRfc5987(name: string): string {
  // A lone surrogate (a name cut in the middle of a pair) would make encodeURIComponent throw.
  const wellFormed = name.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, "\uFFFD");
  return encodeURIComponent(wellFormed).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}
