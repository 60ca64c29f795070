import { getServerSession } from "next-auth";
import { ApiError } from "./api-error";
import { authenticate } from "./authenticate";
import { successEnvelope, jsonResponse, type Envelope } from "./envelope";
import { requestIdFrom } from "./request-id";
import { errorResponse, type RouteContext, type RouteHandler } from "./with-api-key";
import { authOptions } from "../auth/auth-options";
import { portalUser } from "../auth/portal-session";
import { logger, type Logger } from "../log";

/** Who acts through the admin API: an admin of the portal, or the account's own API key (for automation). */
export type AdminActor = { kind: "user"; userId: string; email: string } | { kind: "apiKey"; apiKeyId: string };

export interface AdminContext {
  req: Request;
  /** The account named in the path, already checked against the actor. */
  accountId: string;
  actor: AdminActor;
  requestId: string;
  log: Logger;
  params: Record<string, string | string[] | undefined>;
}

export type AdminHandler = (ctx: AdminContext) => Promise<Envelope | Response>;

async function adminActor(req: Request): Promise<{ accountId: string; actor: AdminActor }> {
  // API credentials (the apikey or Authorization header) are taken alone: a bad key is 401 even beside a session.
  if (req.headers.has("apikey") || req.headers.has("authorization")) {
    const principal = await authenticate(req.headers);
    return { accountId: principal.accountId, actor: { kind: "apiKey", apiKeyId: principal.apiKeyId } };
  }
  const user = portalUser(await getServerSession(authOptions));
  if (!user) throw new ApiError("Unauthorized");
  // Agents chat with phones; settings, logs and audit trails are for the account's admins.
  if (user.role !== "admin") throw new ApiError("Forbidden", { detail: "an admin of the account is required" });
  return { accountId: user.accountId, actor: { kind: "user", userId: user.id, email: user.email } };
}

/**
 * An admin API route under /api/admin/accounts/{accountId}/…: the portal's settings pages and operators' scripts.
 * Credentials are a portal session of an admin of the account, or an API key of the account; another account's
 * id is 403. Answers use the v3 envelope and error codes, so clients parse one shape.
 */
export function withAdmin(handler: AdminHandler): RouteHandler {
  return async (req: Request, routeCtx?: RouteContext) => {
    const requestId = requestIdFrom(req.headers);
    const log = logger().child({ reqId: requestId });
    try {
      const { accountId, actor } = await adminActor(req);
      const params = (await routeCtx?.params) ?? {};
      if (params.accountId !== undefined && params.accountId !== accountId) throw new ApiError("Forbidden");
      const result = await handler({ req, accountId, actor, requestId, log, params });
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
