import { createHash, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import ipaddr from "ipaddr.js";
import { AggregatorRegistry } from "prom-client";
import type { MetricSeries, WorkerChild } from "../boot/worker-child";
import { ApiError } from "../api/api-error";
import { errorEnvelope } from "../api/envelope";
import type { ErrorCode } from "../api/error-codes";
import { requestIdFrom } from "../api/request-id";
import { env } from "../env";
import { dataSecurityHeaders } from "../http/security-headers";
import { logger } from "../log";
import { metrics } from "./define-metrics";
import { readDatabaseGauges } from "./read-database-gauges";

// GET /metrics in the Prometheus text format. With METRICS_TOKEN set it needs `Authorization: Bearer <token>`;
// without, it answers loopback clients only (behind a trusted proxy, the forwarded client's address counts, so a
// proxy on the same machine does not open it to everyone). A server serves its own series and the database's;
// a worker on its own (`npm run worker`, METRICS_WORKER_PORT) serves its own.

const digest = (text: string) => createHash("sha256").update(text).digest();

function tokenMatches(header: string | undefined, token: string): boolean {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? "");
  return match !== null && timingSafeEqual(digest(match[1]!), digest(token));
}

function clientAddress(req: IncomingMessage): string {
  const forwarded = env().TRUST_PROXY
    ? String(req.headers["x-forwarded-for"] ?? "")
        .split(",")[0]!
        .trim()
    : "";
  return forwarded || req.socket.remoteAddress || "";
}

function isLoopback(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  return ipaddr.process(address).range() === "loopback";
}

function sendError(
  req: IncomingMessage,
  res: ServerResponse,
  code: ErrorCode,
  detail: string,
  headers: Record<string, string> = {},
): void {
  const envelope = errorEnvelope(new ApiError(code, { detail }), req.method ?? "GET");
  res.writeHead(envelope.statusCode, {
    "content-type": "application/json; charset=utf-8",
    "x-request-id": requestIdFrom({ get: (n) => (req.headers[n] as string | undefined) ?? null }),
    ...headers,
  });
  res.end(JSON.stringify(envelope));
}

let workerSeries: WorkerChild["metrics"] | null = null;

/**
 * The server's own worker process (lib/boot/worker-child.ts): its series are served with the server's, each sample
 * labelled `process="server"` or `process="worker"`.
 */
export function serveWorkerSeries(read: WorkerChild["metrics"] | null): void {
  workerSeries = read;
}

/**
 * The server's series and its worker's in one exposition: each sample labelled with the process it comes from
 * (`process="server"` or `"worker"`), so that nothing is summed or averaged away (the server's event-loop lag is
 * the one that delays answers); `sum without (process)` adds them up.
 */
function labelProcess(metrics: MetricSeries, name: "server" | "worker"): MetricSeries {
  return metrics.map((metric) => ({
    ...metric,
    // Every sample is unique once labelled: merging by name then just puts the two processes' samples together.
    aggregator: "first",
    values: metric.values.map((value) => ({ ...value, labels: { ...value.labels, process: name } })),
  }));
}

async function serverText(): Promise<string> {
  const m = metrics();
  await readDatabaseGauges();
  if (!workerSeries) return m.serverRegistry.metrics();
  const [own, worker] = await Promise.all([m.serverRegistry.getMetricsAsJSON(), workerSeries()]);
  // A worker being restarted does not answer: the server's series still go out.
  if (!worker) logger().warn("the worker process did not answer for /metrics; serving the server's series only");
  const merged = [labelProcess(own, "server"), ...(worker ? [labelProcess(worker, "worker")] : [])];
  return AggregatorRegistry.aggregate(merged).metrics();
}

/** Answers a request for /metrics: `server` with the database's gauges, `worker` with this process's series only. */
export async function serveMetrics(
  req: IncomingMessage,
  res: ServerResponse,
  scope: "server" | "worker" = "server",
): Promise<void> {
  const { METRICS_TOKEN: token } = env();
  if (token !== undefined) {
    if (!tokenMatches(req.headers.authorization, token)) {
      return sendError(req, res, "Unauthorized", "/metrics needs the header Authorization: Bearer <METRICS_TOKEN>", {
        "www-authenticate": 'Bearer realm="metrics"',
      });
    }
  } else if (!isLoopback(clientAddress(req))) {
    return sendError(req, res, "Forbidden", "/metrics answers only this machine unless METRICS_TOKEN is set");
  }
  if (req.method !== "GET" && req.method !== "HEAD") {
    return sendError(req, res, "ResourceNotAllowed", "/metrics is read with GET");
  }
  const m = metrics();
  let text: string;
  try {
    text = scope === "server" ? await serverText() : await m.processRegistry.metrics();
  } catch (error) {
    logger().error({ err: error }, "metrics could not be collected");
    return sendError(req, res, "SystemFailure", "the metrics could not be collected");
  }
  res.writeHead(200, {
    "content-type": m.processRegistry.contentType,
    "content-length": String(Buffer.byteLength(text)),
    "cache-control": "no-store",
  });
  res.end(req.method === "HEAD" ? undefined : text);
}

/** A separate worker's own /metrics (METRICS_WORKER_PORT); resolves once it listens, with the port it got. */
export async function startWorkerMetrics(port: number, host: string): Promise<{ port: number; server: Server }> {
  const server = createServer((req, res) => {
    const pathname = (req.url ?? "/").split("?")[0];
    for (const [name, value] of Object.entries(dataSecurityHeaders())) res.setHeader(name, value);
    const answer =
      pathname === "/metrics"
        ? serveMetrics(req, res, "worker")
        : Promise.resolve(sendError(req, res, "NotFound", "this port serves /metrics only"));
    answer.catch((error) => {
      logger().error({ err: error }, "worker metrics request failed");
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address();
  return { port: typeof address === "object" && address ? address.port : port, server };
}
