import { ApiError } from "./api-error";
import { authenticate } from "./authenticate";
import { successEnvelope, jsonResponse, type Envelope } from "./envelope";
import { requestIdFrom } from "./request-id";
import { errorResponse, type RouteContext, type RouteHandler } from "./with-api-key";
import { currentPortalUser } from "../auth/portal-session";
import { logger, type Logger } from "../log";
import { CLIENT_IP_HEADER } from "../auth/client-ip";

/** Who acts through the admin API: a portal user, or the account's own API key (for automation). */
export type AdminActor =
  | { kind: "user"; userId: string; email: string; name: string; role: "admin" | "agent"; sessionId: string }
  | { kind: "apiKey"; apiKeyId: string };

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

async function adminActor(
  req: Request,
  agents: boolean,
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
 * An admin API route under /api/admin/accounts/{accountId}/…: the portal's settings pages and operators' scripts.
 * Credentials are a portal session of an admin of the account, or an API key of the account; another account's
 * id is 403. Answers use the v3 envelope and error codes, so clients parse one shape. `agents: true` lets the
 * account's agents in too (the read-only and conversation routes); every other route is for admins.
 */
export function withAdmin(handler: AdminHandler, options: { agents?: boolean } = {}): RouteHandler {
  return async (req: Request, routeCtx?: RouteContext) => {
    const requestId = requestIdFrom(req.headers);
    const log = logger().child({ reqId: requestId });
    try {
      const { accountId, actor, ip } = await adminActor(req, options.agents ?? false);
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
