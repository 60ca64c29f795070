// The delivery worker on its own: `npm run worker` (start the servers with PARLEY_WORKER=false). Several may run
// against one PostgreSQL database; they share the pacing state there and never send the same part twice.
import { bootstrapEnv, env } from "../lib/env";
import { logger } from "../lib/log";
import { prepareDatabase } from "../lib/boot/prepare-database";
import { disconnectDb } from "../lib/db/client";
import { startConfiguredWorker } from "../lib/delivery/start-worker";
import { startConfiguredDispatcher } from "../lib/webhooks/start-dispatcher";
import { startWorkerMetrics } from "../lib/metrics/serve-metrics";

async function main(): Promise<void> {
  bootstrapEnv();
  await prepareDatabase();
  const worker = await startConfiguredWorker();
  const webhooks = startConfiguredDispatcher();
  // This process's counters (parts submitted, receipts, webhook attempts, its carrier link) on its own port.
  const { METRICS_WORKER_PORT: metricsPort, HOST: host } = env();
  const metricsServer = metricsPort === undefined ? null : await startWorkerMetrics(metricsPort, host);
  if (metricsServer) logger().info({ port: metricsServer.port }, "worker metrics listening");
  if (process.env.PARLEY_READY_FD === "stdout") {
    if (metricsServer) process.stdout.write(`PARLEY_WORKER_METRICS ${metricsServer.port}\n`);
    process.stdout.write(`PARLEY_WORKER_READY ${worker.id}\n`);
  }
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger().info({ signal }, "worker shutting down");
    metricsServer?.server.close();
    await Promise.all([worker.stop(), webhooks.stop()]);
    await disconnectDb();
    process.exit(0);
  };
  process.on("SIGTERM", () => void stop("SIGTERM"));
  process.on("SIGINT", () => void stop("SIGINT"));
}

main().catch((error) => {
  logger().fatal({ err: error }, "worker failed to start");
  process.stderr.write(`Parley worker could not start: ${(error as Error).message}\n`);
  process.exit(1);
});
