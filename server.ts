// Parley's one HTTP server: /v3/* goes straight to the app/v3 route handler exports (the same functions Next
// would call, without its per-request pipeline: ~8× the throughput), everything else to Next's handler;
// socket.io shares the server.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import next from "next";
import { Server as SocketServer } from "socket.io";
import { announceListening, bootstrapEnv, env, publicUrl } from "./lib/env";
import { logger } from "./lib/log";
import { prepareDatabase } from "./lib/boot/prepare-database";
import { disconnectDb } from "./lib/db/client";
import { describeDemo, ensureDemo, type DemoCredentials } from "./lib/accounts/create-demo";
import { sendWebResponse, toHandlerRequest } from "./lib/http/node-bridge";
import { requestIdFrom } from "./lib/api/request-id";
import { CLIENT_IP_HEADER } from "./lib/auth/client-ip";
import { startConfiguredWorker } from "./lib/delivery/start-worker";
import { startConfiguredDispatcher } from "./lib/webhooks/start-dispatcher";
import { startConfiguredRetention } from "./lib/retention/start-retention";
import { startRealtime } from "./lib/realtime/start-realtime";
import { startBodyIndexer } from "./lib/db/body-indexer";
import { gracefulClose } from "./lib/http/graceful-close";
import { stopOnSignals } from "./lib/boot/stop-on-signals";
import { serveMetrics } from "./lib/metrics/serve-metrics";
import * as messagesRoute from "./app/v3/messages/route";
import * as sdrsRoute from "./app/v3/sdrs/[accountId]/[messageId]/route";
import * as numbersRoute from "./app/v3/numbers/route";
import * as numberRoute from "./app/v3/numbers/[number]/route";
import * as unknownRoute from "./app/v3/[...path]/route";
import * as openapiRoute from "./app/v3/openapi.json/route";

type Handler = (req: Request, ctx?: { params?: Promise<Record<string, string | string[]>> }) => Promise<Response>;
type RouteModule = Partial<Record<string, unknown>>;

// The route table of the fast path. A path it does not match exactly (a trailing slash, say) or a method the
// module does not export goes to Next, which then answers exactly as it would have anyway.
function matchV3(pathname: string): { module: RouteModule; params: Record<string, string | string[]> } | null {
  if (!pathname.startsWith("/v3")) return null;
  if (pathname === "/v3/messages") return { module: messagesRoute, params: {} };
  if (pathname === "/v3/openapi.json") return { module: openapiRoute, params: {} };
  if (pathname === "/v3/numbers") return { module: numbersRoute, params: {} };
  const number = /^\/v3\/numbers\/([^/]+)$/.exec(pathname);
  if (number) return { module: numberRoute, params: { number: decodeURIComponent(number[1]!) } };
  const sdr = /^\/v3\/sdrs\/([^/]+)\/([^/]+)$/.exec(pathname);
  if (sdr)
    return {
      module: sdrsRoute,
      params: { accountId: decodeURIComponent(sdr[1]!), messageId: decodeURIComponent(sdr[2]!) },
    };
  if (pathname.endsWith("/") || pathname.includes("//")) return null;
  if (pathname === "/v3") return { module: unknownRoute, params: {} };
  if (pathname.startsWith("/v3/"))
    return { module: unknownRoute, params: { path: pathname.slice(4).split("/").map(decodeURIComponent) } };
  return null;
}

async function main(): Promise<void> {
  bootstrapEnv();
  const config = env();
  const log = logger();
  await prepareDatabase();
  const bodyIndexer = startBodyIndexer();
  const demo = config.PARLEY_DEMO ? await ensureDemo() : null;

  const app = next({ dev: config.PARLEY_DEV, dir: process.cwd(), hostname: config.HOST, port: config.PORT });
  await app.prepare();
  const nextHandler = app.getRequestHandler();
  const fastPath = process.env.PARLEY_FAST_PATH !== "false";

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = process.hrtime.bigint();
    const url = req.url ?? "/";
    const pathname = url.split("?")[0]!;
    res.on("finish", () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      log.info(
        {
          reqId: res.getHeader("x-request-id"),
          method: req.method,
          path: pathname,
          status: res.statusCode,
          ms: Math.round(ms * 10) / 10,
        },
        "request",
      );
    });
    if (pathname === "/metrics") return serveMetrics(req, res);
    const route = fastPath ? matchV3(pathname) : null;
    const handler = route ? (route.module[req.method ?? "GET"] as Handler | undefined) : undefined;
    if (route && handler) {
      try {
        const request = await toHandlerRequest(req, publicUrl(), config.MAX_BODY_BYTES);
        await sendWebResponse(res, await handler(request, { params: Promise.resolve(route.params) }));
      } catch (error) {
        log.error({ err: error }, "fast path failure");
        if (!res.headersSent) {
          res.writeHead(500, { "content-type": "application/json" });
          res.end(
            JSON.stringify({
              status: "SystemFailure",
              statusCode: 500,
              statusMessage: "General System Failure",
              statusUri: "",
            }),
          );
        }
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
    if (!pathname.startsWith("/v3") && !res.hasHeader("x-request-id"))
      res.setHeader("x-request-id", requestIdFrom({ get: (n) => (req.headers[n] as string | undefined) ?? null }));
    await nextHandler(req, res);
  }

  const server = createServer();
  const closer = gracefulClose(server);
  server.on("request", (req: IncomingMessage, res: ServerResponse) => {
    closer.track(res);
    handle(req, res).catch((error) => {
      log.error({ err: error }, "request failure");
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  server.keepAliveTimeout = 65_000;
  const io = new SocketServer(server, { path: "/socket.io", serveClient: false });
  (globalThis as unknown as { __parleyIo?: SocketServer }).__parleyIo = io;
  // The live conversation view: the change feed, socket authentication, catch-up and multi-server fan-out.
  const realtime = await startRealtime(io);

  await new Promise<void>((resolve) => server.listen(config.PORT, config.HOST, resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : config.PORT;
  announceListening(port);
  log.info({ port, database: config.DATABASE_URL.split(":")[0], fastPath }, "parley listening");
  // The delivery worker runs in this process unless it runs on its own (`npm run worker`).
  const worker = config.PARLEY_WORKER ? await startConfiguredWorker() : null;
  const webhooks = config.PARLEY_WORKER ? startConfiguredDispatcher() : null;
  const retention = config.PARLEY_WORKER ? startConfiguredRetention() : null;
  if (process.env.PARLEY_READY_FD === "stdout") process.stdout.write(`PARLEY_READY ${port}\n`);
  if (demo) printDemo(demo);

  // SIGTERM (a restart, a rolling deploy): everything stops at once and the process exits within 10 s. Browsers'
  // sockets are closed at the transport (not disconnected by the server, which would tell them not to come back), so
  // they reconnect, through the load balancer, to another server; requests in flight are answered and their
  // connections closed; the worker gives its numbers back for another worker to take at once.
  stopOnSignals({
    log,
    parts: {
      http: async () => {
        void io.close();
        await closer.close();
        // After the last request: one still in flight may announce a change through the realtime clients.
        await realtime.stop();
      },
      worker: async () => worker?.stop(),
      webhooks: async () => webhooks?.stop(),
      retention: async () => retention?.stop(),
      bodyIndexer: async () => bodyIndexer?.stop(),
    },
    last: disconnectDb,
  });
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
