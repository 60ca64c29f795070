import { db } from "../db/client";
import { FINAL_STATUSES } from "../messaging/message-status";
import { IDEMPOTENCY_WINDOW_MS } from "../messaging/idempotency";
import { DEFAULT_BATCH_SIZE, pruneInBatches, sqlParams, type PruneControl, type Tx } from "./prune-in-batches";

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

const FINAL_LIST = FINAL_STATUSES.map((s) => `'${s}'`).join(", ");

interface DeletedRow {
  id: string;
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
    const messages = await pruneInBatches(async (tx) => {
      const rows = await deleteMessages(tx, { accountId, before, after, size });
      if (rows.length === 0) return { deleted: 0, more: false };
      after = rows
        .map((r) => ({ at: new Date(r.createdAt), id: r.id }))
        .reduce((a, b) => (b.at > a.at || (b.at.getTime() === a.at.getTime() && b.id > a.id) ? b : a));
      const ids = rows.map((r) => r.id);
      await deleteDependents(tx, ids);
      return { deleted: rows.length, more: rows.length === size };
    }, control);
    const conversations = await pruneInBatches(async (tx) => {
      const deleted = await deleteEmptyConversations(tx, { accountId, before, size });
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

/**
 * The batch's messages, chosen and deleted in one statement. The conditions are on the deleted row itself too: on
 * PostgreSQL a row changed meanwhile by another transaction is checked again in its new version before it goes.
 */
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
       AND ("direction" = 'inbound' OR "status" IN (${FINAL_LIST}))
     RETURNING "id", "createdAt"`,
    ...values,
  );
}

/**
 * What hangs off the deleted messages without a foreign key: webhook events (whatever their status: one resent
 * meanwhile has no message to report on any more) with their attempts, and flags.
 */
async function deleteDependents(tx: Tx, ids: string[]): Promise<void> {
  for (const statement of [
    (list: string) =>
      `DELETE FROM "WebhookAttempt" WHERE "eventId" IN (SELECT "id" FROM "WebhookEvent" WHERE "messageId" IN (${list}))`,
    (list: string) => `DELETE FROM "WebhookEvent" WHERE "messageId" IN (${list})`,
    (list: string) => `DELETE FROM "MessageFlag" WHERE "messageId" IN (${list})`,
  ]) {
    const { values, list } = sqlParams();
    await tx.$executeRawUnsafe(statement(list(ids)), ...values);
  }
}

/**
 * The account's conversations with no message left and no activity since the cut-off (a conversation's last
 * activity is its newest message's, so it emptied through retention), with the staff's read markers. A message
 * written to one meanwhile moves its lastMessageAt past the cut-off, which is checked on the deleted row: it stays.
 */
async function deleteEmptyConversations(
  tx: Tx,
  input: { accountId: string; before: Date; size: number },
): Promise<number> {
  const { values, p } = sqlParams();
  const empty = (before: string) =>
    `"lastMessageAt" < ${before} AND NOT EXISTS (SELECT 1 FROM "Message" m WHERE m."conversationId" = "Conversation"."id")`;
  // SQLite binds its placeholders in the order they appear: each p() is called where its value goes.
  const deleted = await tx.$queryRawUnsafe<{ id: string }[]>(
    `DELETE FROM "Conversation" WHERE "id" IN (
       SELECT "id" FROM "Conversation" WHERE "accountId" = ${p("text", input.accountId)} AND ${empty(p("date", input.before))}
       LIMIT ${input.size})
       AND ${empty(p("date", input.before))}
     RETURNING "id"`,
    ...values,
  );
  if (deleted.length > 0) {
    const reads = sqlParams();
    await tx.$executeRawUnsafe(
      `DELETE FROM "ConversationRead" WHERE "conversationId" IN (${reads.list(deleted.map((c) => c.id))})`,
      ...reads.values,
    );
  }
  return deleted.length;
}
