import {
  DEFAULT_BATCH_SIZE,
  pruneInBatches,
  sqlParams,
  type PruneControl,
  type PruneRun,
} from "../retention/prune-in-batches";

/**
 * Deletes delivered and failed events whose last scheduled attempt is older than `before`, with their attempts, a
 * batch at a time (short transactions: the sends and receipts of the same database go on meanwhile). Pending
 * events stay whatever their age. `deleted` is how many events went.
 */
export async function pruneWebhookEvents(before: Date, control: PruneControl = {}): Promise<PruneRun> {
  const size = control.batchSize ?? DEFAULT_BATCH_SIZE;
  return pruneInBatches(async (tx) => {
    const { values, p } = sqlParams();
    const events = await tx.$queryRawUnsafe<{ id: string }[]>(
      `DELETE FROM "WebhookEvent" WHERE "id" IN (
         SELECT "id" FROM "WebhookEvent" WHERE "status" IN ('delivered', 'failed') AND "nextAttemptAt" < ${p("date", before)}
         LIMIT ${size})
       RETURNING "id"`,
      ...values,
    );
    if (events.length > 0) {
      const attempts = sqlParams();
      await tx.$executeRawUnsafe(
        `DELETE FROM "WebhookAttempt" WHERE "eventId" IN (${attempts.list(events.map((e) => e.id))})`,
        ...attempts.values,
      );
    }
    return { deleted: events.length, more: events.length === size };
  }, control);
}
