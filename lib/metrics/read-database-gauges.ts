import { db } from "../db/client";
import { env } from "../env";
import { liveWorkers } from "../delivery/worker-heartbeat";
import { metrics } from "./define-metrics";

interface QueueRow {
  from: string;
  depth: bigint | number;
  oldest: Date | string;
  numbers: bigint | number;
  messages: bigint | number;
  oldestAll: Date | string;
}

const ageSeconds = (at: Date | string | null | undefined, now: number) =>
  at ? Math.max(0, (now - new Date(at).getTime()) / 1000) : 0;

/**
 * Sets the deployment-wide gauges from the database, once per scrape. The queues take one grouped query over the
 * waiting messages (the index on status and number), which returns at most METRICS_QUEUE_NUMBERS rows, the numbers
 * with the most waiting, with the totals over all numbers beside each row; the webhook backlog one aggregate over
 * the pending events; the workers at most 50 heartbeat rows.
 */
export async function readDatabaseGauges(now = Date.now()): Promise<void> {
  const client = db();
  const [queues, webhooks, workers] = await Promise.all([
    client.$queryRawUnsafe<QueueRow[]>(
      `SELECT "fromNumber" AS "from", COUNT(*) AS "depth", MIN("createdAt") AS "oldest",
         COUNT(*) OVER () AS "numbers", CAST(SUM(COUNT(*)) OVER () AS BIGINT) AS "messages",
         MIN(MIN("createdAt")) OVER () AS "oldestAll"
       FROM "Message" WHERE "status" IN ('queued', 'sending') AND "direction" = 'outbound'
       GROUP BY "fromNumber" ORDER BY COUNT(*) DESC, "fromNumber" LIMIT ${env().METRICS_QUEUE_NUMBERS}`,
    ),
    client.webhookEvent.aggregate({
      where: { status: "pending" },
      _count: { _all: true },
      _min: { createdAt: true },
    }),
    liveWorkers(new Date(now)),
  ]);

  // Set together after the reads, so a scrape never shows one gauge reset and another not.
  const m = metrics();
  m.queueDepth.reset();
  m.queueOldestAge.reset();
  for (const row of queues) {
    m.queueDepth.set({ from: row.from }, Number(row.depth));
    m.queueOldestAge.set({ from: row.from }, ageSeconds(row.oldest, now));
  }
  const totals = queues[0];
  m.queuedMessages.set(totals ? Number(totals.messages) : 0);
  m.queueNumbers.set(totals ? Number(totals.numbers) : 0);
  m.queuedOldestAge.set(ageSeconds(totals?.oldestAll, now));
  m.webhookBacklog.set(webhooks._count._all);
  m.webhookOldestPendingAge.set(ageSeconds(webhooks._min.createdAt, now));
  m.workers.reset();
  for (const worker of workers) m.workers.inc({ carrier: worker.carrier, state: worker.state });
}
