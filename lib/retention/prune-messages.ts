import { db } from "../db/client";
import { runSteps } from "../db/steps";
import { IDEMPOTENCY_WINDOW_MS } from "../messaging/idempotency";
import { DEFAULT_BATCH_SIZE, pruneInBatches, type PruneControl } from "./prune-in-batches";
import {
  deleteEmptyConversationsSteps,
  deleteIdempotencyRecordsSteps,
  deleteMessageDependentsSteps,
  deleteSettledMessagesSteps,
} from "./retention-queries";

// Message retention (docs/RETENTION.md). A message goes once it is older than the cut-off and settled: inbound, or
// outbound with a final status, and no webhook event of it still waiting to be delivered (the dispatcher would
// record that delivery as an SDR of the message). With it go its SDRs and parts (the foreign keys cascade), its
// webhook events and their attempts, and its flags. Then the account's conversations with no message left and no
// activity since the cut-off go, with their read markers. Opt-out evidence (OptState, OptEvent) and the audit trail
// are never touched.

export interface MessagePruneResult {
  messages: number;
  conversations: number;
  idempotencyRecords: number;
  batches: number;
}

/** Deletes settled messages created before `before`, a batch at a time, one account after another. */
export async function pruneMessages(before: Date, control: PruneControl = {}): Promise<MessagePruneResult> {
  const result: MessagePruneResult = { messages: 0, conversations: 0, idempotencyRecords: 0, batches: 0 };
  const size = control.batchSize ?? DEFAULT_BATCH_SIZE;
  const accounts = await db().account.findMany({ select: { id: true }, orderBy: { id: "asc" } });
  for (const { id: accountId } of accounts) {
    // Each account's messages are walked in (createdAt, id) order along its index; the position moves past each
    // batch, so messages still in flight are read once per run, not once per batch.
    let after = { at: new Date(0), id: "" };
    const messages = await pruneInBatches(async (tx) => {
      const rows = await runSteps(tx, deleteSettledMessagesSteps({ accountId, before, after, size }));
      if (rows.length === 0) return { deleted: 0, more: false };
      after = rows
        .map((r) => ({ at: new Date(r.createdAt), id: r.id }))
        .reduce((a, b) => (b.at > a.at || (b.at.getTime() === a.at.getTime() && b.id > a.id) ? b : a));
      const ids = rows.map((r) => r.id);
      await runSteps(tx, deleteMessageDependentsSteps(ids));
      return { deleted: rows.length, more: rows.length === size };
    }, control);
    const conversations = await pruneInBatches(async (tx) => {
      const deleted = await runSteps(tx, deleteEmptyConversationsSteps({ accountId, before, size }));
      return { deleted, more: deleted === size };
    }, control);
    result.messages += messages.deleted;
    result.conversations += conversations.deleted;
    result.batches += messages.batches + conversations.batches;
    if (control.stopping?.()) return result;
  }
  // A recorded answer to an Idempotency-Key names the messages it sent and repeats their text. It is replayed for
  // 24 hours only, and the retention is at least a day, so those older than the cut-off are of no more use.
  const expired = new Date(Math.min(before.getTime(), Date.now() - IDEMPOTENCY_WINDOW_MS));
  const records = await pruneInBatches(async (tx) => {
    const deleted = await runSteps(tx, deleteIdempotencyRecordsSteps(expired, size));
    return { deleted, more: deleted === size };
  }, control);
  result.idempotencyRecords = records.deleted;
  result.batches += records.batches;
  return result;
}
