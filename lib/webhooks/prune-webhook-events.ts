import { runSteps } from "../db/steps";
import { DEFAULT_BATCH_SIZE, pruneInBatches, type PruneControl, type PruneRun } from "../retention/prune-in-batches";
import { deleteFinishedEventsSteps } from "./webhook-queries";

/**
 * Deletes delivered and failed events whose last scheduled attempt is older than `before`, with their attempts, a
 * batch at a time (short transactions: the sends and receipts of the same database go on meanwhile). Pending
 * events stay whatever their age. `deleted` is how many events went.
 */
export async function pruneWebhookEvents(before: Date, control: PruneControl = {}): Promise<PruneRun> {
  const size = control.batchSize ?? DEFAULT_BATCH_SIZE;
  return pruneInBatches(async (tx) => {
    const deleted = await runSteps(tx, deleteFinishedEventsSteps(before, size));
    return { deleted, more: deleted === size };
  }, control);
}
