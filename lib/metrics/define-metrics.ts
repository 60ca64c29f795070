import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import type { Carrier } from "../carriers/carrier";
import { FINAL_STATUSES } from "../messaging/message-status";
import { processSingleton } from "../process-singletons";
import { watchWalSyncs, watchWriteLock } from "../db/write-lock-watch";

// Every series Parley exports (docs/METRICS.md). Two registries:
// - `process`: what this process counts as it works (sends it accepted, parts it submitted, receipts and webhook
//   attempts it recorded, its carrier link) and Node's own figures. A worker running as its own process
//   (`npm run worker`) serves these on METRICS_WORKER_PORT; the server serves its own.
// - `database`: deployment-wide gauges read from the database at scrape time (queues, webhook backlog, workers'
//   carrier links). Only servers serve them, so a worker's figures are never counted twice.

const CARRIER_STATES = ["connected", "bound", "connecting", "down"] as const;
const REJECT_REASONS = [
  "FromNotOwned",
  "InvalidDestination",
  "DuplicateDestination",
  "CountryNotAllowed",
  "OptedOut",
] as const;
const RECEIPT_STATUSES = FINAL_STATUSES;
const SUBMIT_ERRORS = ["retry", "failed", "rejected"] as const;
export const WEBHOOK_OUTCOMES = ["accepted", "http_error", "timeout", "network", "refused"] as const;

export type WebhookOutcome = (typeof WEBHOOK_OUTCOMES)[number];

function create() {
  const processRegistry = new Registry();
  const databaseRegistry = new Registry();
  collectDefaultMetrics({ register: processRegistry });
  const inProcess = { registers: [processRegistry] };
  const fromDatabase = { registers: [databaseRegistry] };

  // The carriers of the delivery workers running in this process (normally one), for the link gauges.
  const carriers = new Set<Carrier>();

  const series = {
    messagesAccepted: new Counter({
      name: "parley_messages_accepted_total",
      help: "Outbound messages accepted for sending (one per destination), by the API and the portal",
      ...inProcess,
    }),
    messagesRejected: new Counter({
      name: "parley_messages_rejected_total",
      help: "Outbound messages refused in the send response, by reason",
      labelNames: ["reason"] as const,
      ...inProcess,
    }),
    apiRateLimited: new Counter({
      name: "parley_api_rate_limited_total",
      help: "/v3 requests answered 429 TooManyRequests by the per-key rate limit",
      ...inProcess,
    }),
    segmentsSubmitted: new Counter({
      name: "parley_segments_submitted_total",
      help: "Message parts (segments) the carrier accepted",
      ...inProcess,
    }),
    submitErrors: new Counter({
      name: "parley_submit_errors_total",
      help: "Part submits the carrier did not accept, by what followed (retry later, failed, rejected)",
      labelNames: ["outcome"] as const,
      ...inProcess,
    }),
    receipts: new Counter({
      name: "parley_receipts_total",
      help: "Delivery receipts recorded (one per part; repeats of a receipt not counted), by outcome",
      labelNames: ["status"] as const,
      ...inProcess,
    }),
    webhookAttempts: new Counter({
      name: "parley_webhook_attempts_total",
      help: "Webhook delivery attempts recorded, by outcome (accepted: a 2xx within the timeout)",
      labelNames: ["outcome"] as const,
      ...inProcess,
    }),
    writeLockHeld: new Histogram({
      name: "parley_sqlite_write_lock_held_seconds",
      help: "SQLite: how long each write transaction of this process held the database's one write lock, by holder (transactions: its grouped write transactions; send_writer: a batch of sends; body_indexer: a step of the body index)",
      labelNames: ["holder"] as const,
      buckets: [0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 1],
      ...inProcess,
    }),
    walSyncs: new Histogram({
      name: "parley_sqlite_wal_sync_seconds",
      help: "SQLite: each disk sync of the WAL file for this process's writes (the send writer's batches, the grouped write transactions), made after their commits off the event loop and outside the write lock (one sync covers the commits before it)",
      buckets: [0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 1],
      ...inProcess,
    }),
    carrierState: new Gauge({
      name: "parley_carrier_connection_state",
      help: "The link of this process's delivery worker to its carrier: 1 for the state it is in, 0 for the others",
      labelNames: ["carrier", "state"] as const,
      ...inProcess,
      collect() {
        this.reset();
        for (const carrier of carriers) {
          const now = carrier.connectionState?.().state ?? "connected";
          for (const state of CARRIER_STATES) this.set({ carrier: carrier.name, state }, state === now ? 1 : 0);
        }
      },
    }),
    submitWindowInUse: new Gauge({
      name: "parley_carrier_submit_window_in_use",
      help: "Submits waiting for the carrier's answer now (SMPP: submit_sm without their submit_sm_resp)",
      labelNames: ["carrier"] as const,
      ...inProcess,
      collect() {
        this.reset();
        for (const carrier of carriers) {
          const window = carrier.submitWindow?.();
          if (window) this.set({ carrier: carrier.name }, window.inUse);
        }
      },
    }),
    submitWindowSize: new Gauge({
      name: "parley_carrier_submit_window_size",
      help: "The most submits that may wait for the carrier's answer at once (SMPP_WINDOW for each bind that can send)",
      labelNames: ["carrier"] as const,
      ...inProcess,
      collect() {
        this.reset();
        for (const carrier of carriers) {
          const window = carrier.submitWindow?.();
          if (window) this.set({ carrier: carrier.name }, window.size);
        }
      },
    }),

    queueDepth: new Gauge({
      name: "parley_queue_depth",
      help: "Outbound messages waiting to leave (queued, or part-way out) from a number; the numbers with the most waiting",
      labelNames: ["from"] as const,
      ...fromDatabase,
    }),
    queueOldestAge: new Gauge({
      name: "parley_queue_oldest_age_seconds",
      help: "Age of the oldest message waiting to leave from a number (the same numbers as parley_queue_depth)",
      labelNames: ["from"] as const,
      ...fromDatabase,
    }),
    queuedMessages: new Gauge({
      name: "parley_queued_messages",
      help: "Outbound messages waiting to leave, all numbers together",
      ...fromDatabase,
    }),
    queueNumbers: new Gauge({
      name: "parley_queue_numbers",
      help: "Numbers with at least one message waiting to leave",
      ...fromDatabase,
    }),
    webhookBacklog: new Gauge({
      name: "parley_webhook_backlog",
      help: "Webhook events waiting for delivery (a first attempt or a retry)",
      ...fromDatabase,
    }),
    webhookDispatchLag: new Gauge({
      name: "parley_webhook_dispatch_lag_seconds",
      help: "How long the most overdue webhook event has been due for its attempt (0 when none is overdue)",
      ...fromDatabase,
    }),
    workers: new Gauge({
      name: "parley_workers",
      help: "Delivery workers with a recent heartbeat, in any process, by their carrier link's state",
      labelNames: ["carrier", "state"] as const,
      ...fromDatabase,
    }),
    connectionUp: new Gauge({
      name: "parley_carrier_connection_up",
      help: "Each account's carrier connections as the workers last saw them: 1 up, 0 down or disabled, -1 not used yet or connecting",
      labelNames: ["account", "connection", "type"] as const,
      ...fromDatabase,
    }),
  };

  // Labelled counters start at 0 for every value they can take, so rate() sees the first event.
  for (const reason of REJECT_REASONS) series.messagesRejected.inc({ reason }, 0);
  for (const status of RECEIPT_STATUSES) series.receipts.inc({ status }, 0);
  for (const outcome of SUBMIT_ERRORS) series.submitErrors.inc({ outcome }, 0);
  for (const outcome of WEBHOOK_OUTCOMES) series.webhookAttempts.inc({ outcome }, 0);
  watchWriteLock((holder, seconds) => series.writeLockHeld.observe({ holder }, seconds));
  watchWalSyncs((seconds) => series.walSyncs.observe(seconds));

  return {
    ...series,
    processRegistry,
    /** What a server serves: this process's series and the deployment-wide ones. */
    serverRegistry: Registry.merge([processRegistry, databaseRegistry]),
    /** Puts a delivery worker's carrier into the link gauges until the returned function is called. */
    observeCarrier(carrier: Carrier): () => void {
      carriers.add(carrier);
      return () => void carriers.delete(carrier);
    },
  };
}

export type Metrics = ReturnType<typeof create>;

const holder = processSingleton("metrics", (): { __parleyMetrics?: Metrics } => ({}));

export function metrics(): Metrics {
  return (holder.__parleyMetrics ??= create());
}
