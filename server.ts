// Parley's one HTTP server: /v3/* goes straight to the app/v3 route handler exports (the same functions Next
// would call, without its per-request pipeline: ~8× the throughput), everything else to Next's handler;
// socket.io shares the server.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { join } from "node:path";
import next from "next";
import { Server as SocketServer } from "socket.io";
import { announceListening, bootstrapEnv, env, publicUrl } from "./lib/env";
import { logger } from "./lib/log";
import { metrics } from "./lib/metrics/define-metrics";
import { prepareDatabase } from "./lib/boot/prepare-database";
import { startDatabaseUpkeep } from "./lib/boot/database-upkeep";
import { disconnectDb } from "./lib/db/client";
import { describeDemo, ensureDemo, type DemoCredentials } from "./lib/accounts/create-demo";
import { sendWebResponse, toHandlerRequest, toStreamingRequest } from "./lib/http/node-bridge";
import { serveMediaRequest } from "./lib/media/serve-media-request";
import { requestIdFrom } from "./lib/api/request-id";
import { ApiError } from "./lib/api/api-error";
import { appRoutePatterns } from "./lib/http/app-route-patterns";
import { checkRequest, isApiPath } from "./lib/http/check-request";
import {
  clientErrorAnswer,
  endSocketWithEnvelope,
  envelopeNextErrors,
  writeEnvelope,
} from "./lib/http/envelope-answers";
import { CLIENT_IP_HEADER } from "./lib/auth/client-ip";
import { crossSiteRefusal, handshakeRefusal, recordCrossSiteRefusal } from "./lib/http/refuse-cross-site";
import { applySecurityHeaders, dataSecurityHeaders } from "./lib/http/security-headers";
import { startWorkerChild, type WorkerChild } from "./lib/boot/worker-child";
import { startRealtime } from "./lib/realtime/start-realtime";
import { announceChanges } from "./lib/realtime/announce-changes";
import { startBodyIndexer } from "./lib/db/body-indexer";
import { gracefulClose } from "./lib/http/graceful-close";
import { stopOnSignals } from "./lib/boot/stop-on-signals";
import { serveMetrics, serveWorkerSeries } from "./lib/metrics/serve-metrics";
import * as messagesRoute from "./app/v3/messages/route";
import * as sdrsRoute from "./app/v3/sdrs/[accountId]/[messageId]/route";
import * as numbersRoute from "./app/v3/numbers/route";
import * as numberRoute from "./app/v3/numbers/[number]/route";
import * as unknownRoute from "./app/v3/[...path]/route";
import * as openapiRoute from "./app/v3/openapi.json/route";
import * as mediaRoute from "./app/v3/media/route";
import * as previewRoute from "./app/v3/messages/preview/route";
import * as cancelRoute from "./app/v3/messages/[messageId]/cancel/route";
import * as campaignsRoute from "./app/v3/campaigns/route";
import * as campaignRoute from "./app/v3/campaigns/[campaignId]/route";
import * as campaignActionRoute from "./app/v3/campaigns/[campaignId]/[action]/route";
import { processSingleton } from "./lib/process-singletons";

/** A carrier connection's callback addresses (app/carriers/[connectionId]/{status,inbound}). */
const CARRIER_CALLBACK = /^\/carriers\/cc_[A-Za-z0-9]{20}\/(status|inbound)$/;
/** A medium's address (lib/media/media-ids.ts): anything else under /media/ is the same 404. */
const MEDIA_PATH = /^\/media\/[^/]+$/;

const NEXT_INTERNAL_HEADER =
  /^(rsc|next-[a-z-]+|x-nextjs-[a-z-]+|x-middleware-[a-z-]+|x-invoke-[a-z-]+|x-matched-path|x-now-route-matches|x-prerender-revalidate[a-z-]*|if-(none-)?match|if-(un)?modified-since|if-range|range)$/;

type Handler = (req: Request, ctx?: { params?: Promise<Record<string, string | string[]>> }) => Promise<Response>;
type RouteModule = Partial<Record<string, unknown>>;

// The route table of the fast path. A method the module does not export goes to Next (HEAD, which Next answers as
// GET without a body) or is ResourceNotAllowed, as Next would answer it. checkRequest has already refused segments
// that do not decode and made the path canonical (no dot or empty segments, no trailing slash).
function matchV3(pathname: string): { module: RouteModule; params: Record<string, string | string[]> } | null {
  // As Next matches: literal segments as sent (`%6Dessages` is not `messages`), parameters decoded.
  const [root, ...rest] = pathname.slice(1).split("/");
  if (root !== "v3") return null;
  const decoded = rest.map(decodeURIComponent);
  const [first, ...more] = rest;
  if (more.length === 0 && first === "messages") return { module: messagesRoute, params: {} };
  if (more.length === 0 && first === "openapi.json") return { module: openapiRoute, params: {} };
  if (more.length === 0 && first === "numbers") return { module: numbersRoute, params: {} };
  if (more.length === 0 && first === "media") return { module: mediaRoute, params: {} };
  if (more.length === 1 && first === "numbers") return { module: numberRoute, params: { number: decoded[1]! } };
  if (more.length === 1 && first === "messages" && more[0] === "preview") return { module: previewRoute, params: {} };
  if (first === "campaigns" && more.length <= 2) {
    if (more.length === 0) return { module: campaignsRoute, params: {} };
    if (more.length === 1) return { module: campaignRoute, params: { campaignId: decoded[1]! } };
    return { module: campaignActionRoute, params: { campaignId: decoded[1]!, action: decoded[2]! } };
  }
  if (more.length === 2 && first === "messages" && more[1] === "cancel")
    return { module: cancelRoute, params: { messageId: decoded[1]! } };
  if (more.length === 2 && first === "sdrs")
    return { module: sdrsRoute, params: { accountId: decoded[1]!, messageId: decoded[2]! } };
  return { module: unknownRoute, params: rest.length > 0 ? { path: decoded } : {} };
}

async function main(): Promise<void> {
  bootstrapEnv();
  const config = env();
  const log = logger();
  await prepareDatabase();
  // This process's series exist from the start (the write lock's holds are counted from the first commit).
  metrics();
  const bodyIndexer = startBodyIndexer();
  const upkeep = startDatabaseUpkeep();
  const demo = config.PARLEY_DEMO ? await ensureDemo() : null;
  // The delivery worker (with the webhook dispatcher and retention) in a process of its own, unless it runs
  // elsewhere (`npm run worker`): it starts while Next prepares, and the server is ready when both are.
  const workerStarting: Promise<WorkerChild> | null = config.PARLEY_WORKER
    ? startWorkerChild(log, { onChanges: announceChanges })
    : null;
  workerStarting?.catch(() => {});

  const app = next({ dev: config.PARLEY_DEV, dir: process.cwd(), hostname: config.HOST, port: config.PORT });
  await app.prepare();
  const nextHandler = app.getRequestHandler();
  const fastPath = process.env.PARLEY_FAST_PATH !== "false";

  const routePatterns = appRoutePatterns(join(process.cwd(), "app"));

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = process.hrtime.bigint();
    const method = req.method ?? "GET";
    // One request id for the whole request: the route handlers read it back from the header.
    const requestId = requestIdFrom({ get: (n) => (req.headers[n] as string | undefined) ?? null });
    req.headers["x-request-id"] = requestId;
    res.setHeader("x-request-id", requestId);
    const checked = checkRequest(method, req.url ?? "/", routePatterns);
    req.url = checked.target;
    const pathname = checked.target.split("?")[0]!;
    // CSP (with a fresh nonce for a page, given to Next on the request), framing, sniffing, referrer, HSTS.
    applySecurityHeaders(req, res, pathname);
    res.on("finish", () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      log.info(
        { reqId: requestId, method, path: pathname, status: res.statusCode, ms: Math.round(ms * 10) / 10 },
        "request",
      );
    });
    // HTTP/1.1 requires Host (node:http's own check answers a bare 400, so it is off and made here).
    const refusal =
      checked.refusal ??
      (req.httpVersion === "1.1" && req.headers.host === undefined
        ? new ApiError("InvalidRequest", { detail: "an HTTP/1.1 request needs a Host header" })
        : null);
    if (refusal) {
      writeEnvelope(res, refusal, method, requestId);
      return;
    }
    if (pathname === "/metrics") return serveMetrics(req, res);
    // Media by their unguessable ids, for carriers, webhook receivers and the portal alike (no session).
    if (MEDIA_PATH.test(pathname)) return serveMediaRequest(req, res, pathname.slice("/media/".length));
    const route = fastPath ? matchV3(pathname) : null;
    const handler = route ? (route.module[method] as Handler | undefined) : undefined;
    if (route && !handler && method !== "HEAD") {
      // What Next answers (through envelopeNextErrors) for a method the route does not export.
      writeEnvelope(res, new ApiError("ResourceNotAllowed"), method, requestId);
      return;
    }
    if (route && handler) {
      // An upload may come from the portal with its session cookie: the same origin check as the portal's own routes.
      const crossSite = route.module === mediaRoute ? crossSiteRefusal(req) : null;
      if (crossSite) {
        writeEnvelope(res, new ApiError("CrossSiteRequest", { detail: crossSite }), method, requestId);
        return;
      }
      try {
        const request =
          route.module === mediaRoute
            ? toStreamingRequest(req, publicUrl())
            : await toHandlerRequest(req, publicUrl(), config.MAX_BODY_BYTES);
        await sendWebResponse(res, await handler(request, { params: Promise.resolve(route.params) }));
      } catch (error) {
        log.error({ err: error, reqId: requestId }, "fast path failure");
        writeEnvelope(res, new ApiError("SystemFailure"), method, requestId);
      }
      return;
    }
    // The client's address for sign-in throttling and the audit trail; never what the client claims itself.
    const forwarded = config.TRUST_PROXY
      ? String(req.headers["x-forwarded-for"] ?? "")
          .split(",")[0]!
          .trim()
      : "";
    req.headers[CLIENT_IP_HEADER] = forwarded || req.socket.remoteAddress || "";
    // The portal and its admin API are authenticated by a cookie the browser adds to any request: a state-changing
    // one sent by a page on another origin is refused here, before any route sees it (/v3 takes API keys only).
    // Carriers' callbacks (/carriers/{id}/status|inbound) are authenticated by the provider's signature alone.
    const byCredentials =
      ((pathname === "/v3" || pathname.startsWith("/v3/")) && pathname !== "/v3/media") ||
      CARRIER_CALLBACK.test(pathname);
    const crossSite = byCredentials ? null : crossSiteRefusal(req);
    if (crossSite) {
      const refusal = { reason: crossSite, what: `${method} ${pathname}`, ip: req.headers[CLIENT_IP_HEADER] as string };
      await recordCrossSiteRefusal(req, refusal).catch((error: unknown) =>
        log.error({ err: error, reqId: requestId }, "cross-site refusal not audited"),
      );
      writeEnvelope(res, new ApiError("CrossSiteRequest", { detail: crossSite }), method, requestId);
      return;
    }
    if (isApiPath(pathname)) {
      // Next's own request headers (router state, server actions, RSC) and conditional or range headers mean
      // nothing to an API route; sent by a client they turn its answer into a redirect, a page payload or a 304.
      for (const name of Object.keys(req.headers)) if (NEXT_INTERNAL_HEADER.test(name)) delete req.headers[name];
      envelopeNextErrors(res, { method, path: pathname, requestId, log });
    }
    await nextHandler(req, res);
  }

  const server = createServer({ requireHostHeader: false });
  const closer = gracefulClose(server);
  server.on("request", (req: IncomingMessage, res: ServerResponse) => {
    closer.track(res);
    handle(req, res).catch((error) => {
      // The last resort: whatever failed, the client gets the envelope, never a bare 500.
      const requestId = String(res.getHeader("x-request-id") ?? req.headers["x-request-id"] ?? "");
      log.error({ err: error, reqId: requestId }, "request failure");
      writeEnvelope(res, new ApiError("SystemFailure"), req.method ?? "GET", requestId);
    });
  });
  // Requests node:http itself refuses (malformed HTTP, a method its parser does not know, oversized heads).
  server.on("clientError", (error: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket) => {
    const inFlight = (socket as unknown as { _httpMessage?: ServerResponse })._httpMessage;
    if (error.code === "ECONNRESET" || inFlight?.headersSent) {
      socket.destroy();
      return;
    }
    const answer = clientErrorAnswer(error);
    endSocketWithEnvelope(socket, answer.error, answer.method, randomRequestId());
  });
  // CONNECT (a proxy's method) and upgrades outside socket.io never reach the request handler.
  server.on("connect", (_req: IncomingMessage, socket) => {
    const detail = "the methods served are GET, HEAD, POST, PUT, PATCH and DELETE";
    endSocketWithEnvelope(socket, new ApiError("ResourceNotAllowed", { detail }), "CONNECT", randomRequestId());
  });
  server.on("upgrade", (req: IncomingMessage, socket) => {
    const url = req.url ?? "";
    if (url.startsWith("/socket.io/")) return;
    // `npm run dev`: Next's hot reload talks over a WebSocket of its own, which Next's listener upgrades.
    if (config.PARLEY_DEV && url.startsWith("/_next/hmr")) return;
    const detail = "only /socket.io/ accepts a protocol upgrade";
    endSocketWithEnvelope(socket, new ApiError("InvalidRequest", { detail }), req.method ?? "GET", randomRequestId());
  });
  server.keepAliveTimeout = 65_000;
  const io = new SocketServer(server, {
    path: "/socket.io",
    serveClient: false,
    // A handshake from a page on another origin would carry the portal's cookie (WebSockets have no CORS).
    allowRequest: (req, callback) => {
      const refusal = handshakeRefusal(req);
      if (!refusal) return callback(null, true);
      const ip = req.socket.remoteAddress ?? "";
      recordCrossSiteRefusal(req, { reason: refusal, what: "socket.io handshake", ip })
        .catch((error: unknown) => log.error({ err: error }, "cross-site refusal not audited"))
        .finally(() => callback("cross-site handshake refused", false));
    },
  });
  // socket.io answers its own requests (polling, the websocket handshake): they carry the headers too.
  io.engine.on("headers", (headers: Record<string, string>) => Object.assign(headers, dataSecurityHeaders()));
  processSingleton("io", (): { __parleyIo?: SocketServer } => ({})).__parleyIo = io;
  // The live conversation view: the change feed, socket authentication, catch-up and multi-server fan-out.
  const realtime = await startRealtime(io);

  // SIGTERM (a restart, a rolling deploy): everything stops at once and the process exits within 10 s. Browsers'
  // sockets are closed at the transport (not disconnected by the server, which would tell them not to come back), so
  // they reconnect, through the load balancer, to another server; requests in flight are answered and their
  // connections closed; the worker gives its numbers back for another worker to take at once. Installed before the
  // server listens: its health check answers, and a process manager may signal it, while the worker still starts.
  stopOnSignals({
    log,
    parts: {
      http: async () => {
        void io.close();
        await closer.close();
        // After the last request: one still in flight may announce a change through the realtime clients.
        await realtime.stop();
      },
      // A worker still starting is stopped once it has started.
      worker: async () => (await workerStarting?.catch(() => null))?.stop(),
      bodyIndexer: async () => bodyIndexer?.stop(),
      upkeep: async () => upkeep.stop(),
    },
    last: disconnectDb,
  });
  await new Promise<void>((resolve, reject) => {
    // A port another program holds is a failed start, said plainly, not a server waiting forever.
    const failed = (error: NodeJS.ErrnoException) =>
      reject(
        error.code === "EADDRINUSE"
          ? new Error(`port ${config.PORT} on ${config.HOST} is in use by another program (choose another with PORT)`)
          : error,
      );
    server.once("error", failed);
    server.listen(config.PORT, config.HOST, () => {
      server.off("error", failed);
      resolve();
    });
  });
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : config.PORT;
  announceListening(port);
  log.info({ port, database: config.DATABASE_URL.split(":")[0], fastPath }, "parley listening");
  const worker = workerStarting ? await workerStarting : null;
  worker?.listening(port);
  serveWorkerSeries(worker?.metrics ?? null);
  // Ready only once a signal would stop it cleanly: a process manager may signal it the moment it says so.
  if (process.env.PARLEY_READY_FD === "stdout") process.stdout.write(`PARLEY_READY ${port}\n`);
  if (demo) printDemo(demo);
}

function randomRequestId(): string {
  return requestIdFrom({ get: () => null });
}

function printDemo(demo: DemoCredentials): void {
  const lines = ["", "  Parley is ready. A demo account was created (shown once; keep it):", ""];
  lines.push(...describeDemo(demo, publicUrl()).map((l) => (l ? `    ${l}` : l)), "");
  process.stderr.write(lines.join("\n") + "\n");
}

main().catch((error) => {
  // Said first, and plainly: when the configuration itself is invalid, the logger cannot start either.
  process.stderr.write(`Parley could not start: ${(error as Error).message}\n`);
  try {
    logger().fatal({ err: error }, "start-up failed");
  } catch {
    // the configuration error already said it all
  }
  process.exit(1);
});
