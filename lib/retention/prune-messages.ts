import { db } from "../db/client";
import { FINAL_STATUSES } from "../delivery/final-status";
import { IDEMPOTENCY_WINDOW_MS } from "../messaging/idempotency";
import { DEFAULT_BATCH_SIZE, pruneInBatches, sqlParams, type PruneControl, type Tx } from "./prune-in-batches";

// Message retention (docs/RETENTION.md). A message goes once it is older than the cut-off and settled: inbound, or
// outbound with a final status, and no webhook event of it still waiting to be delivered (the dispatcher would
// record that delivery as an SDR of the message). With it go its SDRs and parts (the foreign keys cascade), its
// webhook events and their attempts, its flags, and a conversation left without messages, with its read markers.
// Opt-out evidence (OptState, OptEvent) and the audit trail are never touched.

export interface MessagePruneResult {
  messages: number;
  conversations: number;
  idempotencyRecords: number;
  batches: number;
}

const FINAL_LIST = FINAL_STATUSES.map((s) => `'${s}'`).join(", ");

interface DeletedRow {
  id: string;
  conversationId: string | null;
  createdAt: Date | string;
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
    const run = await pruneInBatches(async (tx) => {
      const rows = await deleteMessages(tx, { accountId, before, after, size });
      if (rows.length === 0) return { deleted: 0, more: false };
      const last = rows
        .map((r) => ({ at: new Date(r.createdAt), id: r.id }))
        .reduce((a, b) => (b.at > a.at || (b.at.getTime() === a.at.getTime() && b.id > a.id) ? b : a));
      after = last;
      result.conversations += await deleteDependents(tx, rows, before);
      return { deleted: rows.length, more: rows.length === size };
    }, control);
    result.messages += run.deleted;
    result.batches += run.batches;
    if (control.stopping?.()) return result;
  }
  // A recorded answer to an Idempotency-Key names the messages it sent and repeats their text. It is replayed for
  // 24 hours only, and the retention is at least a day, so those older than the cut-off are of no more use.
  const expired = new Date(Math.min(before.getTime(), Date.now() - IDEMPOTENCY_WINDOW_MS));
  const records = await pruneInBatches(async (tx) => {
    const { values, p } = sqlParams();
    const deleted = await tx.$executeRawUnsafe(
      `DELETE FROM "IdempotencyRecord" WHERE "id" IN (
         SELECT "id" FROM "IdempotencyRecord" WHERE "createdAt" < ${p("date", expired)} LIMIT ${size})`,
      ...values,
    );
    return { deleted, more: deleted === size };
  }, control);
  result.idempotencyRecords = records.deleted;
  result.batches += records.batches;
  return result;
}

/** The batch's messages, chosen and deleted in one statement (so the conditions hold when the rows go). */
async function deleteMessages(
  tx: Tx,
  input: { accountId: string; before: Date; after: { at: Date; id: string }; size: number },
): Promise<DeletedRow[]> {
  const { values, p } = sqlParams();
  return tx.$queryRawUnsafe<DeletedRow[]>(
    `DELETE FROM "Message" WHERE "id" IN (
       SELECT m."id" FROM "Message" m
       WHERE m."accountId" = ${p("text", input.accountId)} AND m."createdAt" < ${p("date", input.before)}
         AND (m."createdAt" > ${p("date", input.after.at)}
           OR (m."createdAt" = ${p("date", input.after.at)} AND m."id" > ${p("text", input.after.id)}))
         AND (m."direction" = 'inbound' OR m."status" IN (${FINAL_LIST}))
         AND NOT EXISTS (SELECT 1 FROM "WebhookEvent" e WHERE e."messageId" = m."id" AND e."status" = 'pending')
       ORDER BY m."createdAt", m."id" LIMIT ${input.size})
     RETURNING "id", "conversationId", "createdAt"`,
    ...values,
  );
}

/**
 * What hangs off the deleted messages without a foreign key: webhook events (whatever their status: one resent
 * meanwhile has no message to report on any more) and their attempts, flags; then their conversations that have
 * no message left and no activity since the cut-off, with the staff's read markers. Returns how many
 * conversations went.
 */
async function deleteDependents(tx: Tx, rows: DeletedRow[], before: Date): Promise<number> {
  const ids = rows.map((r) => r.id);
  for (const statement of [
    (list: string) =>
      `DELETE FROM "WebhookAttempt" WHERE "eventId" IN (SELECT "id" FROM "WebhookEvent" WHERE "messageId" IN (${list}))`,
    (list: string) => `DELETE FROM "WebhookEvent" WHERE "messageId" IN (${list})`,
    (list: string) => `DELETE FROM "MessageFlag" WHERE "messageId" IN (${list})`,
  ]) {
    const { values, list } = sqlParams();
    await tx.$executeRawUnsafe(statement(list(ids)), ...values);
  }
  const conversationIds = [...new Set(rows.map((r) => r.conversationId).filter((c): c is string => c !== null))];
  if (conversationIds.length === 0) return 0;
  // A message written to the conversation meanwhile moves its lastMessageAt past the cut-off, and then it stays.
  const { values, p, list } = sqlParams();
  const emptied = await tx.$queryRawUnsafe<{ id: string }[]>(
    `DELETE FROM "Conversation" WHERE "id" IN (${list(conversationIds)})
       AND "lastMessageAt" < ${p("date", before)}
       AND NOT EXISTS (SELECT 1 FROM "Message" m WHERE m."conversationId" = "Conversation"."id")
     RETURNING "id"`,
    ...values,
  );
  if (emptied.length > 0) {
    const reads = sqlParams();
    await tx.$executeRawUnsafe(
      `DELETE FROM "ConversationRead" WHERE "conversationId" IN (${reads.list(emptied.map((c) => c.id))})`,
      ...reads.values,
    );
  }
  return emptied.length;
}
