// The delivery worker: started by each server in a process of its own (PARLEY_WORKER=true, the default, see
// lib/boot/worker-child.ts), or on its own with `npm run worker` (start the servers with PARLEY_WORKER=false).
// Several may run against one PostgreSQL database; they share the pacing state there and never send the same part
// twice.
import { announceListening, bootstrapEnv, env } from "../lib/env";
import { logger } from "../lib/log";
import { prepareDatabase } from "../lib/boot/prepare-database";
import { disconnectDb } from "../lib/db/client";
import { groupWritesWithin } from "../lib/db/steps";
import { startConfiguredWorker } from "../lib/delivery/start-worker";
import { startConfiguredDispatcher } from "../lib/webhooks/start-dispatcher";
import { startConfiguredRetention } from "../lib/retention/start-retention";
import { startConfiguredMediaWorker } from "../lib/media/media-worker";
import { stopOnSignals } from "../lib/boot/stop-on-signals";
import { startWorkerMetrics } from "../lib/metrics/serve-metrics";
import { metrics } from "../lib/metrics/define-metrics";
import type { WorkerMessage } from "../lib/boot/worker-child";

import { fanOutKind, installAnnouncer, throttleAnnouncements } from "../lib/realtime/announce-changes";

/** How long the worker's first write transaction waits for others to share its commit. */
const WRITE_GROUP_MS = 4;

async function main(): Promise<void> {
  // Started by a server: when it is gone (the IPC channel closes however it ended, even by SIGKILL, and also while
  // this worker still starts, e.g. the server's own start failed), this worker stops as on SIGTERM: cleanly once
  // its stop is installed, at once before that.
  // A server gone while this module still loaded closed the channel before anyone listened: it is closed already.
  if (process.send) {
    process.once("disconnect", () => process.kill(process.pid, "SIGTERM"));
    if (!process.connected) process.kill(process.pid, "SIGTERM");
  }
  bootstrapEnv();
  // Started by a server that listens already: its address is this worker's public URL too (without PUBLIC_URL).
  if (process.env.PARLEY_SERVER_PORT) announceListening(Number(process.env.PARLEY_SERVER_PORT));
  // Started by a server without Redis or PostgreSQL fan-out: it is told of the SDRs written here over IPC (with
  // fan-out, the emitter tells every server).
  if (process.send && fanOutKind() === null) {
    // Every writer of SDRs here announces them once they are committed (the delivery rounds and receipts through
    // lib/messaging/write-sdrs.ts, inbound messages and expiry after their transaction), so one wake-up, at most one per 10 ms
    // burst, is enough; the server's poll remains the last resort.
    const wake = throttleAnnouncements(() => tellServer({ type: "changes" }));
    installAnnouncer({ announce: wake, close: async () => {} });
  }
  await prepareDatabase();
  // This process's series exist from the start (the write lock's holds are counted from the first commit).
  metrics();
  // Its write transactions (a round's record, receipts, webhook claims and outcomes) come from loops of their own, a
  // few each millisecond under load: on SQLite those asked for within this window share one commit (lib/db/steps.ts).
  groupWritesWithin(WRITE_GROUP_MS);
  const worker = await startConfiguredWorker();
  const webhooks = startConfiguredDispatcher();
  const retention = startConfiguredRetention();
  const media = startConfiguredMediaWorker();
  // This process's counters (parts submitted, receipts, webhook attempts, its carrier link) on its own port.
  const { METRICS_WORKER_PORT: metricsPort, HOST: host } = env();
  const metricsServer = metricsPort === undefined ? null : await startWorkerMetrics(metricsPort, host);
  if (metricsServer) logger().info({ port: metricsServer.port }, "worker metrics listening");
  // SIGTERM: the worker gives its numbers and the simulator's owed receipts back, the dispatcher lets its posts in
  // flight finish, and the process exits within 10 s whatever still hangs (an event left unrecorded is retried
  // after its lease).
  stopOnSignals({
    log: logger().child({ component: "worker-process" }),
    parts: {
      worker: () => worker.stop(),
      webhooks: () => webhooks.stop(),
      retention: () => retention.stop(),
      media: () => media.stop(),
      metrics: async () => metricsServer?.server.close(),
    },
    last: disconnectDb,
  });
  // Ready only once a signal would stop it cleanly: a process manager may signal it the moment it says so.
  if (process.env.PARLEY_READY_FD === "stdout") {
    if (metricsServer) process.stdout.write(`PARLEY_WORKER_METRICS ${metricsServer.port}\n`);
    process.stdout.write(`PARLEY_WORKER_READY ${worker.id}\n`);
  }
  if (process.send) answerServer(worker.id);
}

/**
 * Started by a server (lib/boot/worker-child.ts): says it is ready and answers its requests for metrics.
 */
function answerServer(workerId: string): void {
  process.on("message", (message: { type?: string; requestId?: number; port?: number }) => {
    if (message.type === "listening" && typeof message.port === "number") announceListening(message.port);
    if (message.type !== "metrics" || typeof message.requestId !== "number") return;
    const requestId = message.requestId;
    void metrics()
      .processRegistry.getMetricsAsJSON()
      .then((series) => tellServer({ type: "metrics", requestId, metrics: series }))
      .catch((error: unknown) => logger().warn({ err: error }, "metrics for the server could not be collected"));
  });
  tellServer({ type: "ready", workerId });
}

/**
 * A message to the server that started this process, if it is still there. Once it is gone (the channel closes
 * however it ended), the stop that follows still records its last round and announces it: sent then, a message
 * would fail, and an unhandled failure of `process.send` ends the process before its stop is done.
 */
function tellServer(message: WorkerMessage): void {
  if (!process.connected) return;
  process.send?.(message, undefined, {}, (error: Error | null) => {
    if (error && process.connected) logger().warn({ err: error }, "a message to the server could not be sent");
  });
}

main().catch((error) => {
  // Said first, and plainly: when the configuration itself is invalid, the logger cannot start either.
  process.stderr.write(`Parley worker could not start: ${(error as Error).message}\n`);
  try {
    logger().fatal({ err: error }, "worker failed to start");
  } catch {
    // the configuration error already said it all
  }
  process.exit(1);
});
