import { env } from "../env";
import { logger } from "../log";
import { createConfiguredCarrier } from "../carriers/create-carrier";
import { buildConnectionCarrier } from "../carriers/connection-carrier";
import { RoutedCarrier } from "../carriers/routed-carrier";
import { DeliveryWorker } from "./delivery-worker";

/**
 * A delivery worker with the configured carrier and settings, started. Its carrier routes each number to its
 * connection (lib/carriers/routed-carrier.ts); the environment's CARRIER is the default connection.
 */
export async function startConfiguredWorker(): Promise<DeliveryWorker> {
  const e = env();
  const defaultCarrier = await createConfiguredCarrier();
  const log = logger().child({ component: "carriers" });
  const worker = new DeliveryWorker({
    carrier: new RoutedCarrier({
      fallback: defaultCarrier,
      build: (connection) => buildConnectionCarrier(connection, { log, defaultCarrier }),
      log,
    }),
    pollMs: e.WORKER_POLL_MS,
    leaseMs: e.WORKER_LEASE_SECONDS * 1000,
    validityMs: e.MESSAGE_VALIDITY_HOURS * 3600_000,
    maxAttempts: e.MAX_SUBMIT_ATTEMPTS,
    retryDelaysMs: e.RETRY_DELAYS_SECONDS.map((s) => s * 1000),
  });
  await worker.start();
  return worker;
}
