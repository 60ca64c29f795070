import { env } from "../env";
import { WebhookDispatcher } from "./webhook-dispatcher";

/** The webhook dispatcher with the configured settings, started (wherever the delivery worker runs). */
export function startConfiguredDispatcher(): WebhookDispatcher {
  const e = env();
  const dispatcher = new WebhookDispatcher({
    pollMs: e.WEBHOOK_POLL_MS,
    concurrency: e.WEBHOOK_CONCURRENCY,
    timeoutMs: e.WEBHOOK_TIMEOUT_SECONDS * 1000,
    leaseMs: e.WEBHOOK_LEASE_SECONDS * 1000,
    retryDelaysMs: e.WEBHOOK_RETRY_SECONDS.map((s) => s * 1000),
    retryWindowMs: e.WEBHOOK_RETRY_WINDOW_SECONDS * 1000,
    allowPrivate: e.WEBHOOK_ALLOW_PRIVATE,
  });
  dispatcher.start();
  return dispatcher;
}
