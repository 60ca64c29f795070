import type { IncomingMessage } from "node:http";
import { env } from "../env";
import { logger } from "../log";
import { recordAudit } from "../audit/audit-trail";
import { sessionTokenOf } from "../auth/session-token";
import { crossSiteReason, ownOrigins, SAFE_METHODS, type RequestOrigin } from "./same-origin";

function header(req: IncomingMessage, name: string): string | null {
  const value = req.headers[name];
  return (Array.isArray(value) ? value[0] : value) ?? null;
}

/** Where a Node request says it comes from and is addressed to. */
export function requestOrigin(req: IncomingMessage): RequestOrigin {
  const forwardedProto = env().TRUST_PROXY ? header(req, "x-forwarded-proto")?.split(",")[0]?.trim() : undefined;
  return {
    origin: header(req, "origin"),
    referer: header(req, "referer"),
    secFetchSite: header(req, "sec-fetch-site"),
    host: header(req, "host"),
    scheme: forwardedProto === "https" ? "https" : "http",
  };
}

/**
 * Why a request to the portal or its admin API must be refused as cross-site, or null. Only state-changing methods
 * are judged, and only where a browser's cookie could be what authenticates them: a request with API credentials
 * (the apikey or Authorization header, which a page on another origin cannot add without a CORS preflight that
 * Parley never grants) authenticates by those alone.
 */
export function crossSiteRefusal(req: IncomingMessage): string | null {
  if (SAFE_METHODS.has(req.method ?? "GET")) return null;
  if (req.headers.apikey !== undefined || req.headers.authorization !== undefined) return null;
  return handshakeRefusal(req);
}

/** The same judgement for a socket.io handshake, whatever its method (a WebSocket upgrade is a GET). */
export function handshakeRefusal(req: IncomingMessage): string | null {
  const request = requestOrigin(req);
  return crossSiteReason(request, ownOrigins(request, env().PUBLIC_URL));
}

/**
 * Writes a refusal into the audit trail of the account whose session cookie came with it (an attack on a signed-in
 * admin is worth knowing about); a request without a valid session is only logged.
 */
export async function recordCrossSiteRefusal(
  req: IncomingMessage,
  refusal: { reason: string; what: string; ip: string },
): Promise<void> {
  const { reason, what, ip } = refusal;
  logger().warn({ what, reason, ip }, "cross-site request refused");
  const token = await sessionTokenOf(req.headers.cookie).catch(() => null);
  if (typeof token?.accountId !== "string") return;
  await recordAudit({
    accountId: token.accountId,
    actor: token.email ? `user:${token.email}` : "",
    action: "request.cross_site_refused",
    target: what,
    detail: reason.slice(0, 300),
    ip,
  });
}
