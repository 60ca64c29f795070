import { ApiError } from "./api-error";
import { authenticate } from "./authenticate";
import { requestIdFrom } from "./request-id";
import { checkRateLimit } from "./rate-limit";
import { errorResponse, type RouteHandler } from "./with-api-key";
import { jsonResponse, type Envelope } from "./envelope";
import { activeUser } from "../auth/active-user";
import { sessionTokenOf } from "../auth/session-token";
import { logger, type Logger } from "../log";

// A v3 route the portal calls too (POST /v3/media: the composer's and the phone simulator's attachments): API
// credentials as every v3 route, or else the portal session cookie. A cookie-authenticated request that changes
// state has had its origin checked by server.ts before it gets here (only /v3 routes taking API keys alone skip that).

export interface UploaderContext {
  req: Request;
  /** The account the credentials belong to. */
  accountId: string;
  actor: { kind: "apiKey"; apiKeyId: string } | { kind: "user"; userId: string };
  requestId: string;
  log: Logger;
}

async function uploader(req: Request): Promise<Pick<UploaderContext, "accountId" | "actor">> {
  if (req.headers.has("apikey") || req.headers.has("authorization")) {
    const principal = await authenticate(req.headers);
    const limited = await checkRateLimit(principal.apiKeyId);
    if (limited) throw Object.assign(limited.error, { retryAfterSeconds: limited.retryAfterSeconds });
    return { accountId: principal.accountId, actor: { kind: "apiKey", apiKeyId: principal.apiKeyId } };
  }
  const token = await sessionTokenOf(req.headers.get("cookie") ?? undefined);
  const user = token?.sub
    ? await activeUser({ userId: token.sub, accountId: token.accountId, sessionId: token.sid })
    : null;
  if (!user) throw new ApiError("Unauthorized");
  if (user.mustEnrolTwoFactor) throw new ApiError("Forbidden", { detail: "two-factor enrolment required" });
  return { accountId: user.accountId, actor: { kind: "user", userId: user.id } };
}

export function withApiKeyOrSession(handler: (ctx: UploaderContext) => Promise<Envelope>): RouteHandler {
  return async (req) => {
    const requestId = requestIdFrom(req.headers);
    const log = logger().child({ reqId: requestId });
    try {
      const who = await uploader(req);
      return jsonResponse(await handler({ req, requestId, log, ...who }), { "x-request-id": requestId });
    } catch (error) {
      const response = errorResponse(error, req, requestId, log);
      const retryAfter = (error as { retryAfterSeconds?: number }).retryAfterSeconds;
      if (retryAfter !== undefined) response.headers.set("retry-after", String(retryAfter));
      return response;
    }
  };
}
