import { env } from "../env";
import { liveWorkers } from "../delivery/worker-heartbeat";
import { metrics } from "./define-metrics";
import { readConnectionStates, readQueues, readWebhookBacklog } from "./metrics-queries";

const secondsSince = (at: Date | string | null | undefined, now: number) =>
  at ? Math.max(0, (now - new Date(at).getTime()) / 1000) : 0;

/**
 * Sets the deployment-wide gauges from the database, once per scrape, in three reads whose cost stays bounded:
 * - the queues: the waiting messages counted by number from the queue's partial index (it holds the outbound messages
 *   queued or being sent, and only those), the METRICS_QUEUE_NUMBERS numbers with the most kept, the totals over all
 *   numbers beside them, and only for those numbers the oldest waiting message (the same index). 14–40 ms with
 *   100,000 messages waiting on 1,000 numbers.
 * - the webhook backlog: its count and its earliest due attempt, from the index on status and next attempt alone;
 * - the workers' carrier links: at most 50 heartbeat rows; the accounts' carrier connections, one row each.
 * On SQLite the first two run on a listing reader thread (lib/metrics/metrics-queries.ts): a scrape does not hold up
 * the server's requests. On PostgreSQL the database does the work.
 */
export async function readDatabaseGauges(now = Date.now()): Promise<void> {
  const [queues, backlog, workers, connections] = await Promise.all([
    readQueues(env().METRICS_QUEUE_NUMBERS),
    readWebhookBacklog(),
    liveWorkers(new Date(now)),
    readConnectionStates(),
  ]);

  // Set together after the reads, so a scrape never shows one gauge reset and another not.
  const m = metrics();
  m.queueDepth.reset();
  m.queueOldestAge.reset();
  for (const row of queues) {
    m.queueDepth.set({ from: row.from }, Number(row.depth));
    m.queueOldestAge.set({ from: row.from }, secondsSince(row.oldest, now));
  }
  m.queuedMessages.set(queues[0] ? Number(queues[0].messages) : 0);
  m.queueNumbers.set(queues[0] ? Number(queues[0].numbers) : 0);
  m.webhookBacklog.set(Number(backlog[0]?.events ?? 0));
  m.webhookDispatchLag.set(secondsSince(backlog[0]?.due, now));
  m.workers.reset();
  for (const worker of workers) m.workers.inc({ carrier: worker.carrier, state: worker.state });
  m.connectionUp.reset();
  for (const c of connections) {
    const up = !c.enabled || c.state === "down" ? 0 : c.state === "up" ? 1 : -1;
    m.connectionUp.set({ account: c.accountId, connection: c.name, type: c.type }, up);
  }
}
