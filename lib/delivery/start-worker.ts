import { env } from "../env";
import { createConfiguredCarrier } from "../carriers/create-carrier";
import { DeliveryWorker } from "./delivery-worker";

/** A delivery worker with the configured carrier and settings, started. */
export async function startConfiguredWorker(): Promise<DeliveryWorker> {
  const e = env();
  const worker = new DeliveryWorker({
    carrier: await createConfiguredCarrier(),
    pollMs: e.WORKER_POLL_MS,
    leaseMs: e.WORKER_LEASE_SECONDS * 1000,
    validityMs: e.MESSAGE_VALIDITY_HOURS * 3600_000,
    maxAttempts: e.MAX_SUBMIT_ATTEMPTS,
    retryDelaysMs: e.RETRY_DELAYS_SECONDS.map((s) => s * 1000),
  });
  await worker.start();
  return worker;
}
