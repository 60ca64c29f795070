import type pg from "pg";
import { binder } from "../db/insert-rows";
import { execute, query, type Steps } from "../db/steps";
import { FINAL_STATUSES } from "../messaging/message-status";

// Every statement of the retention pass (docs/RETENTION.md): the batches that delete settled messages, what hangs
// off them, emptied conversations and expired idempotency records, run by the caller in one short transaction each;
// and the PostgreSQL advisory lock that keeps to one pass at a time. SQLite binds its placeholders in the order they
// appear: each bind() is called where its value goes.

const FINAL_LIST = FINAL_STATUSES.map((s) => `'${s}'`).join(", ");

export interface DeletedMessageRow {
  id: string;
  createdAt: Date | string;
}

/**
 * Up to `size` settled messages of the account created before `before`, after the position `after` in (createdAt, id)
 * order, chosen and deleted in one statement. The conditions are on the deleted row itself too: on PostgreSQL a row
 * changed meanwhile by another transaction is checked again in its new version before it goes.
 */
export function* deleteSettledMessagesSteps(input: {
  accountId: string;
  before: Date;
  after: { at: Date; id: string };
  size: number;
}): Steps<DeletedMessageRow[]> {
  const values: unknown[] = [];
  const bind = binder(values);
  return yield* query<DeletedMessageRow>(
    `DELETE FROM "Message" WHERE "id" IN (
       SELECT m."id" FROM "Message" m
       WHERE m."accountId" = ${bind("text", input.accountId)} AND m."createdAt" < ${bind("date", input.before)}
         AND (m."createdAt" > ${bind("date", input.after.at)}
           OR (m."createdAt" = ${bind("date", input.after.at)} AND m."id" > ${bind("text", input.after.id)}))
         AND (m."direction" = 'inbound' OR m."status" IN (${FINAL_LIST}))
         AND NOT EXISTS (SELECT 1 FROM "WebhookEvent" e WHERE e."messageId" = m."id" AND e."status" = 'pending')
       ORDER BY m."createdAt", m."id" LIMIT ${input.size})
       AND ("direction" = 'inbound' OR "status" IN (${FINAL_LIST}))
     RETURNING "id", "createdAt"`,
    values,
  );
}

/**
 * What hangs off the deleted messages without a foreign key: webhook events (whatever their status: one resent
 * meanwhile has no message to report on any more) with their attempts, and flags.
 */
export function* deleteMessageDependentsSteps(ids: string[]): Steps<void> {
  for (const statement of [
    (list: string) =>
      `DELETE FROM "WebhookAttempt" WHERE "eventId" IN (SELECT "id" FROM "WebhookEvent" WHERE "messageId" IN (${list}))`,
    (list: string) => `DELETE FROM "WebhookEvent" WHERE "messageId" IN (${list})`,
    (list: string) => `DELETE FROM "MessageFlag" WHERE "messageId" IN (${list})`,
  ]) {
    const values: unknown[] = [];
    const bind = binder(values);
    yield* execute(statement(ids.map((id) => bind("text", id)).join(", ")), values);
  }
}

/**
 * Up to `size` of the account's conversations with no message left and no activity since `before`, with the staff's
 * read markers; returns how many conversations went. A message written to one meanwhile moves its lastMessageAt
 * past the cut-off, which is checked on the deleted row: it stays.
 */
export function* deleteEmptyConversationsSteps(input: {
  accountId: string;
  before: Date;
  size: number;
}): Steps<number> {
  const values: unknown[] = [];
  const bind = binder(values);
  const empty = (before: string) =>
    `"lastMessageAt" < ${before} AND NOT EXISTS (SELECT 1 FROM "Message" m WHERE m."conversationId" = "Conversation"."id")`;
  const deleted = yield* query<{ id: string }>(
    `DELETE FROM "Conversation" WHERE "id" IN (
       SELECT "id" FROM "Conversation" WHERE "accountId" = ${bind("text", input.accountId)} AND ${empty(bind("date", input.before))}
       LIMIT ${input.size})
       AND ${empty(bind("date", input.before))}
     RETURNING "id"`,
    values,
  );
  if (deleted.length > 0) {
    const reads: unknown[] = [];
    const bindRead = binder(reads);
    yield* execute(
      `DELETE FROM "ConversationRead" WHERE "conversationId" IN (${deleted.map((c) => bindRead("text", c.id)).join(", ")})`,
      reads,
    );
  }
  return deleted.length;
}

/** Up to `size` idempotency records created before `before`; returns how many went. */
export function* deleteIdempotencyRecordsSteps(before: Date, size: number): Steps<number> {
  const values: unknown[] = [];
  const bind = binder(values);
  return yield* execute(
    `DELETE FROM "IdempotencyRecord" WHERE "id" IN (
       SELECT "id" FROM "IdempotencyRecord" WHERE "createdAt" < ${bind("date", before)} LIMIT ${size})`,
    values,
  );
}

/** Takes the session advisory lock `key` on the connection without waiting; false when another session holds it. */
export async function tryAdvisoryLock(client: pg.Client, key: number): Promise<boolean> {
  const { rows } = await client.query<{ locked: boolean }>("SELECT pg_try_advisory_lock($1) AS locked", [key]);
  return rows[0]?.locked === true;
}

/** Releases the session advisory lock `key` (closing the connection would too). */
export async function releaseAdvisoryLock(client: pg.Client, key: number): Promise<void> {
  await client.query("SELECT pg_advisory_unlock($1)", [key]);
}
