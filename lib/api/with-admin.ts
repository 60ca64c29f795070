import { ApiError } from "./api-error";
import { authenticate } from "./authenticate";
import { successEnvelope, jsonResponse, type Envelope } from "./envelope";
import { requestIdFrom } from "./request-id";
import { errorResponse, type RouteContext, type RouteHandler } from "./with-api-key";
import { currentPortalUser } from "../auth/portal-session";
import { logger, type Logger } from "../log";
import { CLIENT_IP_HEADER } from "../auth/client-ip";
import { SAFE_METHODS } from "../http/same-origin";
import type { AdminActor } from "./admin-actor";

export interface AdminContext {
  req: Request;
  /** The account named in the path, already checked against the actor. */
  accountId: string;
  actor: AdminActor;
  /** The client's address, for the audit trail. */
  ip: string;
  requestId: string;
  log: Logger;
  params: Record<string, string | string[] | undefined>;
}

export type AdminHandler = (ctx: AdminContext) => Promise<Envelope | Response>;

export interface AdminRouteOptions {
  /** The account's agents may call it too (the read-only and conversation routes). */
  agents?: boolean;
  /** Open to a user who must still turn on two-factor (the account requires it): their own enrolment routes. */
  beforeTwoFactor?: boolean;
}

async function adminActor(
  req: Request,
  { agents = false, beforeTwoFactor = false }: AdminRouteOptions,
): Promise<{ accountId: string; actor: AdminActor; ip: string }> {
  const ip = req.headers.get(CLIENT_IP_HEADER) ?? "";
  // API credentials (the apikey or Authorization header) are taken alone: a bad key is 401 even beside a session.
  if (req.headers.has("apikey") || req.headers.has("authorization")) {
    const principal = await authenticate(req.headers);
    return { accountId: principal.accountId, actor: { kind: "apiKey", apiKeyId: principal.apiKeyId }, ip };
  }
  // Read again from the database on every request: a disabled user or a changed role counts at once.
  const user = await currentPortalUser();
  if (!user) throw new ApiError("Unauthorized");
  // Agents chat with phones and read messages; settings, logs and audit trails are for the account's admins.
  if (user.role !== "admin" && !agents)
    throw new ApiError("Forbidden", { detail: "an admin of the account is required" });
  if (!beforeTwoFactor && user.mustEnrolTwoFactor)
    throw new ApiError("Forbidden", { detail: "two-factor enrolment required" });
  const actor = {
    kind: "user" as const,
    userId: user.id,
    email: user.email,
    name: user.name,
    role: user.role,
    sessionId: user.sessionId,
  };
  return { accountId: user.accountId, actor, ip };
}

/**
 * A portal request that changes state must declare a JSON body: an HTML form on another site can only send
 * form-encoded, multipart or text/plain bodies without a CORS preflight, so this refuses what the origin check
 * (server.ts) might ever let through. API-key callers keep the v3 leniency (curl's -d sends form-urlencoded).
 */
function requireJsonBody(req: Request): void {
  if (SAFE_METHODS.has(req.method)) return;
  const length = req.headers.get("content-length");
  const hasBody = req.headers.has("transfer-encoding") || (length !== null && length.trim() !== "0");
  if (!hasBody) return;
  const type = (req.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  if (type === "application/json") return;
  throw new ApiError("UnsupportedMediaType", { detail: `the request body was sent as ${type || "no Content-Type"}` });
}

/**
 * An admin API route under /api/admin/accounts/{accountId}/…: the portal's settings pages and operators' scripts.
 * Credentials are a portal session of an admin of the account, or an API key of the account; another account's
 * id is 403. Answers use the v3 envelope and error codes, so clients parse one shape. `agents: true` lets the
 * account's agents in too (the read-only and conversation routes); every other route is for admins. While the
 * account requires two-factor sign-in, a user who has not turned it on is refused everything but their enrolment.
 */
export function withAdmin(handler: AdminHandler, options: AdminRouteOptions = {}): RouteHandler {
  return async (req: Request, routeCtx?: RouteContext) => {
    const requestId = requestIdFrom(req.headers);
    const log = logger().child({ reqId: requestId });
    try {
      const { accountId, actor, ip } = await adminActor(req, options);
      if (actor.kind === "user") requireJsonBody(req);
      const params = (await routeCtx?.params) ?? {};
      if (params.accountId !== undefined && params.accountId !== accountId) throw new ApiError("Forbidden");
      const result = await handler({ req, accountId, actor, ip, requestId, log, params });
      if (result instanceof Response) {
        result.headers.set("x-request-id", requestId);
        return result;
      }
      return jsonResponse(result, { "x-request-id": requestId, "cache-control": "no-store" });
    } catch (error) {
      return errorResponse(error, req, requestId, log);
    }
  };
}

/** The envelope of an admin answer: data under `data`, as in v3. */
export function adminResult(data: Record<string, unknown>, updated = false): Envelope {
  return successEnvelope(updated ? "UpdateSuccessful" : "QueryCompletedSuccessfully", data);
}
