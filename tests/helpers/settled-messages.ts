import { randomBytes } from "node:crypto";
import { db } from "../../lib/db/client";
import { uuidv4, uuidv7 } from "../../lib/db/ids";
import { insertRows, MESSAGE_PART_COLUMNS, type SdrRow } from "../../lib/db/insert-rows";
import { insertSdrs } from "../../lib/messaging/write-sdrs";
import { WEBHOOK_EVENT_COLUMNS } from "../../lib/webhooks/enqueue-events";
import { WEBHOOK_ATTEMPT_COLUMNS } from "../../lib/webhooks/webhook-queries";

// Many delivered messages with everything a delivery leaves behind (8 SDRs, a part, a status webhook event and its
// attempt), written straight into the database as the worker would have, for retention at scale: sending that many
// through the simulator would take hours at 1 message a second per number.

const MESSAGE_COLUMNS: [string, "text" | "int" | "date"][] = [
  ["id", "text"],
  ["accountId", "text"],
  ["direction", "text"],
  ["messageType", "text"],
  ["fromNumber", "text"],
  ["toNumber", "text"],
  ["body", "text"],
  ["numSegments", "int"],
  ["encoding", "text"],
  ["status", "text"],
  ["partsSubmitted", "int"],
  ["createdAt", "date"],
  ["updatedAt", "date"],
];

const STEPS = ["accepted", "queued", "sending", "message_sent", "wait_dlr", "delivered", "dlr_received", "status_sent"];

/**
 * Writes `count` delivered messages from `from`, created one millisecond apart from `createdAt` on, in transactions
 * of `chunk`. The database is the one the process's client is bound to. Returns the message ids.
 */
export async function seedSettledMessages(input: {
  accountId: string;
  from: string;
  count: number;
  createdAt: Date;
  chunk?: number;
}): Promise<string[]> {
  const { accountId, from } = input;
  const chunk = input.chunk ?? 1000;
  const ids: string[] = [];
  for (let offset = 0; offset < input.count; offset += chunk) {
    const messages: unknown[][] = [];
    const sdrs: SdrRow[] = [];
    const parts: unknown[][] = [];
    const events: unknown[][] = [];
    const attempts: unknown[][] = [];
    for (let i = offset; i < Math.min(offset + chunk, input.count); i++) {
      const at = new Date(input.createdAt.getTime() + i);
      const done = new Date(at.getTime() + 2000);
      const id = uuidv7(at.getTime());
      ids.push(id);
      const to = `1415${String(2_000_000 + i).slice(-7)}`;
      messages.push([
        id,
        accountId,
        "outbound",
        "sms",
        from,
        to,
        `Order ${i} has shipped`,
        1,
        "GSM7",
        "delivered",
        1,
        at,
        done,
      ]);
      for (const [step, status] of STEPS.entries()) {
        sdrs.push({ messageId: id, accountId, status, createdAt: new Date(at.getTime() + step * 200) });
      }
      parts.push([uuidv4(), id, 1, randomBytes(8).toString("hex"), "delivered", at, done]);
      const eventId = `msg_${uuidv4()}`;
      events.push([eventId, accountId, id, "message-status", 1, 0, "{}", "delivered", 1, done, at, done, at]);
      attempts.push([eventId, accountId, done, "https://example.com/hook", 200, 12, null]);
    }
    await db().$transaction(async (tx) => {
      await insertRows(tx, "Message", MESSAGE_COLUMNS, messages);
      await insertSdrs(tx, sdrs);
      await insertRows(tx, "MessagePart", MESSAGE_PART_COLUMNS, parts);
      await insertRows(tx, "WebhookEvent", WEBHOOK_EVENT_COLUMNS, events);
      await insertRows(tx, "WebhookAttempt", WEBHOOK_ATTEMPT_COLUMNS, attempts);
    });
  }
  return ids;
}
