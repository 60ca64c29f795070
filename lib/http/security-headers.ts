import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { env } from "../env";

// The security headers every answer carries, whoever writes it: server.ts for everything it serves (pages, the
// API, static files, /metrics), the envelope writers for the answers made without a route, socket.io's engine for
// its own. A page gets a Content-Security-Policy with a nonce fresh for each request; everything else (JSON, text,
// static files) a policy that allows nothing, since none of it is a document that should run or load anything.

/** Paths whose answers are never a page: the API, Prometheus, media, Next's build output, socket.io. */
const NOT_A_PAGE = /^\/(?:v3|api|metrics|media|socket\.io|_next\/static)(?:\/|$)/;

/** The policy of every answer that is not a page. */
export const DATA_CONTENT_SECURITY_POLICY = "default-src 'none'; frame-ancestors 'none'";

/** 128 random bits, base64 (an alphabet Next accepts in a nonce). */
export function createNonce(): string {
  return randomBytes(16).toString("base64");
}

/** The Content-Security-Policy of a portal page, the sign-in page and the API docs page. */
export function pageContentSecurityPolicy(nonce: string, options: { dev?: boolean } = {}): string {
  const publicUrl = env().PUBLIC_URL;
  const mediaOrigin = publicUrl ? [new URL(publicUrl).origin] : [];
  const directives: Record<string, string[]> = {
    // Anything not named below: nothing.
    "default-src": ["'none'"],
    // Scripts run only when they carry this request's nonce: Next reads it from the request's
    // content-security-policy header and puts it on its bootstrap and RSC payload scripts. 'strict-dynamic' lets
    // those trusted scripts load the build's chunks (the app router adds <script> elements as it navigates), and
    // makes browsers ignore 'self' (kept for those without CSP level 3). An injected <script>, an inline event
    // handler or a javascript: URL never runs. In development React's refresh and Next's overlay evaluate code.
    "script-src": ["'self'", `'nonce-${nonce}'`, "'strict-dynamic'", ...(options.dev ? ["'unsafe-eval'"] : [])],
    // Stylesheets from the build only: the portal styles with Tailwind classes and renders no style attribute
    // (React sets the styles it manages through the CSSOM, which the policy does not govern). Next's development
    // server injects <style> elements of its own.
    "style-src": ["'self'", ...(options.dev ? ["'unsafe-inline'"] : [])],
    // The build's images and icons, generated images (data:, blob:: the composer's previews of files being
    // attached), and the media of messages, which are all Parley's own copies under /media/ (docs/MEDIA.md): no
    // picture is loaded from a sender's or a carrier's server, so opening a conversation tells them nothing.
    // Their URLs are absolute, on PUBLIC_URL: allowed too, for a portal opened at another of the server's addresses.
    "img-src": ["'self'", ...mediaOrigin, "data:", "blob:"],
    // Video and audio attachments play from /media/ too (and the composer's previews from blob:).
    "media-src": ["'self'", ...mediaOrigin, "blob:"],
    "font-src": ["'self'"],
    // fetch() to the portal's API, and socket.io (polling and websockets to the same host: CSP level 3 makes
    // 'self' match ws: and wss: of the page's own host and port).
    "connect-src": ["'self'"],
    // The web app manifest and icons, if the build has them.
    "manifest-src": ["'self'"],
    // Nothing embeds the portal, and the portal embeds nothing.
    "frame-ancestors": ["'none'"],
    "object-src": ["'none'"],
    // An injected <base> cannot move the relative URLs of scripts and links elsewhere.
    "base-uri": ["'self'"],
    // Forms post only to the portal itself (sign-in posts to /api/auth).
    "form-action": ["'self'"],
  };
  return Object.entries(directives)
    .map(([name, sources]) => `${name} ${sources.join(" ")}`)
    .join("; ");
}

// Features the portal never uses, off for the page and anything it could embed. Only features Chromium knows: an
// unknown name is reported as an error in the console of every page.
const PERMISSIONS_POLICY = [
  "accelerometer",
  "autoplay",
  "camera",
  "display-capture",
  "encrypted-media",
  "geolocation",
  "gyroscope",
  "hid",
  "idle-detection",
  "magnetometer",
  "microphone",
  "midi",
  "payment",
  "picture-in-picture",
  "publickey-credentials-get",
  "screen-wake-lock",
  "serial",
  "usb",
  "xr-spatial-tracking",
]
  .map((feature) => `${feature}=()`)
  .join(", ");

/** The headers besides the Content-Security-Policy, the same on every answer. */
function computeOtherHeaders(): Record<string, string> {
  const headers: Record<string, string> = {
    // Older browsers' frame-ancestors: no page of Parley may be framed (clickjacking).
    "x-frame-options": "DENY",
    // A JSON answer or an upload is never read as HTML or script because of its content.
    "x-content-type-options": "nosniff",
    // Links to other sites (media, webhook targets) do not tell them the portal's paths, which hold ids.
    "referrer-policy": "same-origin",
    "permissions-policy": PERMISSIONS_POLICY,
    // A page another site opened (or that opens another site) shares no window with it.
    "cross-origin-opener-policy": "same-origin",
    // Another site's page cannot load Parley's answers as images, scripts or media (cross-origin reads).
    "cross-origin-resource-policy": "same-origin",
  };
  // Only when Parley is reached over TLS (PUBLIC_URL https, TLS in front): a browser then refuses plain HTTP to the
  // host for a year. Sent over plain HTTP it would be ignored, and a local install on http must stay reachable.
  if (env().PUBLIC_URL?.toLowerCase().startsWith("https:")) {
    headers["strict-transport-security"] = "max-age=31536000; includeSubDomains";
  }
  return headers;
}

let computed: { other: Readonly<Record<string, string>>; data: Readonly<Record<string, string>> } | undefined;

function headerSets(): NonNullable<typeof computed> {
  if (!computed) {
    const other = Object.freeze(computeOtherHeaders());
    computed = { other, data: Object.freeze({ ...other, "content-security-policy": DATA_CONTENT_SECURITY_POLICY }) };
  }
  return computed;
}

/** Every security header of an answer that is not a page (JSON, text, static files, raw error answers). */
export function dataSecurityHeaders(): Readonly<Record<string, string>> {
  return headerSets().data;
}

/**
 * Sets the security headers of the answer to `req` on `res`, before anything else writes it. For a page it also
 * puts the page's policy on the request, where Next's renderer finds the nonce for its own inline scripts (it
 * reads the `content-security-policy` request header); for anything else it removes a client's own, so that no
 * client chooses a nonce.
 */
export function applySecurityHeaders(req: IncomingMessage, res: ServerResponse, pathname: string): void {
  delete req.headers["content-security-policy-report-only"];
  if (NOT_A_PAGE.test(pathname)) {
    delete req.headers["content-security-policy"];
    for (const [name, value] of Object.entries(dataSecurityHeaders())) res.setHeader(name, value);
    return;
  }
  const policy = pageContentSecurityPolicy(createNonce(), { dev: env().PARLEY_DEV });
  req.headers["content-security-policy"] = policy;
  for (const [name, value] of Object.entries(headerSets().other)) res.setHeader(name, value);
  res.setHeader("content-security-policy", policy);
}
