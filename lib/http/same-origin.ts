// Cross-site request forgery: a page on another origin (another site, or only another port of the same host, which
// SameSite=Lax cookies do not tell apart) can make a signed-in admin's browser send state-changing requests with the
// portal's cookie. Browsers say where such a request comes from; this module judges it. Pure: server.ts and the
// socket.io handshake give it the headers.

/** The request headers that tell where a browser request comes from, and where it is addressed. */
export interface RequestOrigin {
  origin?: string | null;
  referer?: string | null;
  secFetchSite?: string | null;
  /** The Host header: the address the browser used. */
  host?: string | null;
  /** "https" when a trusted reverse proxy terminated TLS (X-Forwarded-Proto); otherwise the server's own "http". */
  scheme: "http" | "https";
}

/** Methods that never change state (RFC 9110's safe methods): they are not checked. */
export const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

function originOf(url: string): string | null {
  try {
    const parsed = new URL(url);
    return parsed.protocol === "http:" || parsed.protocol === "https:" ? parsed.origin : null;
  } catch {
    return null;
  }
}

/**
 * The origins this deployment serves the portal from: PUBLIC_URL's (what browsers use behind a proxy), and the
 * one the request itself is addressed to (the same server reached directly, e.g. http://10.0.0.5:3000).
 */
export function ownOrigins(request: Pick<RequestOrigin, "host" | "scheme">, publicUrl: string | undefined): string[] {
  const own: string[] = [];
  const configured = publicUrl ? originOf(publicUrl) : null;
  if (configured) own.push(configured);
  const addressed = request.host ? originOf(`${request.scheme}://${request.host}`) : null;
  if (addressed && !own.includes(addressed)) own.push(addressed);
  return own;
}

/**
 * Why a browser request must be refused as cross-site, or null when it comes from the portal itself or from no
 * browser at all. Browsers send Origin on every state-changing request (forms and fetch alike, "null" from sandboxed
 * or privacy-stripped contexts, which is refused); Sec-Fetch-Site and Referer are the fallbacks for the few that do
 * not. A request with none of the three comes from a script or a command-line tool, which a hostile page cannot
 * drive, and is let through.
 */
export function crossSiteReason(request: RequestOrigin, own: readonly string[]): string | null {
  const origin = request.origin?.trim();
  if (origin) {
    if (origin === "null") return "the request comes from an opaque origin (Origin: null)";
    const normalized = originOf(origin);
    return normalized && own.includes(normalized) ? null : `the request comes from another origin (${origin})`;
  }
  const site = request.secFetchSite?.trim().toLowerCase();
  // "none": the user typed the address or used a bookmark; "same-origin": the portal's own page.
  if (site && site !== "same-origin" && site !== "none") return `the request comes from a ${site} page`;
  const referer = request.referer?.trim();
  if (referer && !site) {
    const from = originOf(referer);
    if (!from || !own.includes(from)) return `the request comes from another origin (${from ?? "unknown"})`;
  }
  return null;
}
