import { isApiError, ApiError } from "./api-error";
import { authenticate, type ApiPrincipal } from "./authenticate";
import { errorEnvelope, jsonAnswer, type Envelope } from "./envelope";
import { requestIdFrom } from "./request-id";
import { checkRateLimit } from "./rate-limit";
import { logger, type Logger } from "../log";

export interface RouteContext {
  params?: Promise<Record<string, string | string[] | undefined>>;
}

export interface ApiContext {
  req: Request;
  principal: ApiPrincipal;
  requestId: string;
  log: Logger;
  params: Record<string, string | string[] | undefined>;
}

export type ApiHandler = (ctx: ApiContext) => Promise<Envelope | Response>;
export type RouteHandler = (req: Request, ctx?: RouteContext) => Promise<Response>;

/** Turns anything thrown into the envelope: ApiError as itself, everything else SystemFailure, logged. */
export function errorResponse(error: unknown, req: Request, requestId: string, log: Logger): Response {
  const apiError = isApiError(error) ? error : new ApiError("SystemFailure");
  if (!isApiError(error)) log.error({ err: error, method: req.method, url: req.url }, "unexpected failure");
  return jsonAnswer(req, errorEnvelope(apiError, req.method), { "x-request-id": requestId });
}

function finish(result: Envelope | Response, req: Request, requestId: string): Response {
  if (result instanceof Response) {
    result.headers.set("x-request-id", requestId);
    return result;
  }
  return jsonAnswer(req, result, { "x-request-id": requestId });
}

/**
 * A v3 route: request id, credentials (401 before anything else), the key's request rate (429 when configured),
 * the handler, the one error envelope.
 */
export function withApiKey(handler: ApiHandler): RouteHandler {
  return async (req, routeCtx) => {
    const requestId = requestIdFrom(req.headers);
    // The request's logger is made when first used (most requests log nothing of their own).
    let requestLog: Logger | undefined;
    const log = () => (requestLog ??= logger().child({ reqId: requestId }));
    try {
      const principal = await authenticate(req.headers);
      const limited = await checkRateLimit(principal.apiKeyId);
      if (limited) {
        const response = errorResponse(limited.error, req, requestId, log());
        response.headers.set("retry-after", String(limited.retryAfterSeconds));
        return response;
      }
      const params = (await routeCtx?.params) ?? {};
      const ctx: ApiContext = {
        req,
        principal,
        requestId,
        get log() {
          return log();
        },
        params,
      };
      return finish(await handler(ctx), req, requestId);
    } catch (error) {
      return errorResponse(error, req, requestId, log());
    }
  };
}

/** A v3 route that answers the same error whoever asks (unknown paths, methods not allowed). */
export function withoutAuth(code: "UnknownResource" | "ResourceNotAllowed"): RouteHandler {
  return async (req) => {
    const requestId = requestIdFrom(req.headers);
    return errorResponse(new ApiError(code), req, requestId, logger().child({ reqId: requestId }));
  };
}
