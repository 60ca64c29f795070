import { db } from "../db/client";
import { uuidv7 } from "../db/ids";
import { FINAL_STATUSES } from "../messaging/message-status";
import { afterCommit, runSteps, type Steps } from "../db/steps";
import {
  deliveryStatusPayload,
  formatStatusMsg,
  inboundPayload,
  type LimitWarningPayload,
  type WebhookEventKind,
} from "./build-payloads";
import { hasWebhookSteps, insertWebhookEventsSteps, messagesWithWebhookSteps } from "./webhook-queries";

// The outbox: events are written by the transaction that makes the change they report, so a committed change
// always has its event and a rolled-back one never does; the dispatcher delivers them afterwards. An account with
// no webhook URL configured at that moment gets no event (nothing would ever be sent).

type Tx = Parameters<Parameters<ReturnType<typeof db>["$transaction"]>[0]>[0];

const OUTCOMES = new Set<string>(FINAL_STATUSES);
// Outcomes Parley gives itself (an expiry, a cancellation): their note is Parley's words, with no carrier code.
const PARLEY_OUTCOMES = new Set(["expired", "cancelled"]);

interface NewEvent {
  id: string;
  accountId: string;
  messageId: string;
  kind: WebhookEventKind;
  segmentNumber: number | null;
  sequence: number;
  payload: string;
  at: Date;
}

// The outbox's columns are the queries' own; still exported from here, where the seeded settled messages find them.
export { WEBHOOK_EVENT_COLUMNS } from "./webhook-queries";

function* insertEvents(events: NewEvent[]): Steps<void> {
  if (events.length === 0) return;
  const now = new Date();
  yield* insertWebhookEventsSteps(
    events.map((e) => [
      e.id,
      e.accountId,
      e.messageId,
      e.kind,
      e.segmentNumber,
      e.sequence,
      e.payload,
      "pending",
      0,
      now,
      now,
      null,
      e.at,
    ]),
  );
  yield* afterCommit(notifyEventsWritten);
}

// Dispatchers in this process are told when it wrote events, so the first attempt need not wait for a poll. (Where
// the events were written inside a caller's own transaction, that may not have committed yet: a dispatcher that
// finds nothing looks again at its next poll.)
const listeners = new Set<() => void>();
export function onEventsWritten(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
function notifyEventsWritten(): void {
  for (const listener of listeners) setImmediate(listener);
}

/** The inbound-message event of a message just stored by `receiveMessage` (same transaction), from its row. */
export async function enqueueInboundEvent(tx: Tx, message: Parameters<typeof inboundPayload>[0]): Promise<void> {
  const endpoint = await tx.webhookEndpoint.findUnique({
    where: { accountId: message.accountId },
    select: { accountId: true },
  });
  if (!endpoint) return;
  await runSteps(
    tx,
    insertEvents([
      {
        id: uuidv7(),
        accountId: message.accountId,
        messageId: message.id,
        kind: "message-received",
        segmentNumber: null,
        sequence: 0,
        payload: JSON.stringify(inboundPayload(message)),
        at: message.createdAt,
      },
    ]),
  );
}

/** A daily limit's 80 % warning (lib/guard/daily-limits.ts), in the caller's transaction; none without a URL. */
export function* enqueueLimitWarningSteps(payload: LimitWarningPayload, at: Date): Steps<void> {
  if (!(yield* hasWebhookSteps(payload.accountId))) return;
  yield* insertEvents([
    {
      id: uuidv7(),
      accountId: payload.accountId,
      messageId: payload.messageId,
      kind: "limit-warning",
      segmentNumber: null,
      sequence: 0,
      payload: JSON.stringify(payload),
      at,
    },
  ]);
}

type PayloadMessage = Parameters<typeof deliveryStatusPayload>[0];

/** An SDR row as the delivery code builds them (sdrRow in lib/messaging/record-transitions.ts). */
export interface OutcomeRecord {
  messageId: string;
  status: string;
  statusDetails?: string;
  segmentNumber?: number | null;
  createdAt: Date | string;
}

/**
 * One delivery-status event per segment outcome among the given SDR rows (those with status delivered,
 * undelivered, failed, expired, rejected or cancelled; other rows are ignored), written in the caller's transaction. Taking
 * the SDR rows the caller writes anyway keeps the delivery code unchanged but for this one call:
 * - a receipt's outcome row holds the carrier's delivery note; its `dlr_received` row beside it holds `err:<code>`;
 * - a submit the carrier refused holds "<code> <detail>…" (delivery-worker.ts);
 * - an expiry or a cancellation holds Parley's own note and has no carrier code.
 * Messages of accounts without a webhook URL are skipped in the same query that reads the messages.
 */
export function* enqueueDeliveryStatusEventSteps(rows: OutcomeRecord[]): Steps<void> {
  const outcomes = rows.filter((r) => OUTCOMES.has(r.status) && r.segmentNumber != null);
  if (outcomes.length === 0) return;
  const codes = new Map<string, string>();
  for (const r of rows) {
    if (r.status === "dlr_received") {
      const code = /err:(\S*)/.exec(r.statusDetails ?? "")?.[1];
      if (code) codes.set(`${r.messageId}:${r.segmentNumber}`, code);
    }
  }
  const ids = [...new Set(outcomes.map((o) => o.messageId))];
  const messages = yield* messagesWithWebhookSteps(ids);
  if (messages.length === 0) return;
  // As the database gives them: SQLite's integers and booleans may come as numbers or BigInts.
  const byId = new Map<string, PayloadMessage>(
    messages.map((m) => [m.id, { ...m, numSegments: Number(m.numSegments), bulk: Boolean(m.bulk) }]),
  );
  const events: NewEvent[] = [];
  for (const outcome of outcomes) {
    const message = byId.get(outcome.messageId);
    if (!message) continue;
    const details = (outcome.statusDetails ?? "").trim();
    let note = details;
    let code = codes.get(`${outcome.messageId}:${outcome.segmentNumber}`) ?? "";
    if (!code && !/\bstat:/i.test(details) && !PARLEY_OUTCOMES.has(outcome.status)) {
      // A refused submit: "<code> <detail>[; gave up after n attempts]".
      const [first, ...rest] = details.split(" ");
      code = first ?? "";
      note = rest.join(" ");
    }
    const at = new Date(outcome.createdAt);
    events.push({
      id: uuidv7(),
      accountId: message.accountId,
      messageId: message.id,
      kind: "message-status",
      segmentNumber: outcome.segmentNumber!,
      sequence: events.length,
      payload: JSON.stringify(
        deliveryStatusPayload(message, {
          segmentNumber: outcome.segmentNumber!,
          status: outcome.status,
          statusMsg: formatStatusMsg(outcome.status, note, code),
          at,
        }),
      ),
      at,
    });
  }
  yield* insertEvents(events);
}
