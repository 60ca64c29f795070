import { db, dbProvider } from "../db/client";
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
import {
  hasWebhookSteps,
  insertWebhookEventsSteps,
  messagesWithPendingEventsSteps,
  messagesWithWebhookSteps,
  type ClaimedEvent,
} from "./webhook-queries";

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

/**
 * Writes the events, pending. Under writeTransaction on SQLite, with a dispatcher of this process that has room, the
 * first event of each message that has no other event pending is written leased to that dispatcher already, and handed
 * to it once the transaction has committed: it is posted without the dispatcher's claim (a read and an UPDATE of the
 * row). Any other event waits for a claim, as the events of one message go in order. A dispatcher that stops before
 * posting one gives its lease back; a process that dies leaves it to expire, as a claimed event's.
 */
function* insertEvents(events: NewEvent[]): Steps<void> {
  if (events.length === 0) return;
  const now = new Date();
  const handed: ClaimedEvent[] = [];
  let taker: EventTaker | null = null;
  let until = now;
  const exact = yield* afterCommit(() => {
    if (taker && handed.length > 0) taker.take(handed, until.getTime());
    if (handed.length < events.length) notifyEventsWritten();
  });
  // SQLite only: its write transactions are serialised, so no other writer can store a pending event of the same
  // message between this check and this commit. PostgreSQL's concurrent transactions could, and two events of one
  // message would then be posted at once: there every event waits for a claim.
  taker = exact && dbProvider() === "sqlite" ? takerWithRoom() : null;
  const leased = taker ? yield* leasable(events, taker.room()) : new Set<NewEvent>();
  if (taker) until = new Date(taker.leaseUntil(now.getTime()));
  yield* insertWebhookEventsSteps(
    events.map((e) => {
      const lease = leased.has(e);
      if (lease) {
        handed.push({
          id: e.id,
          accountId: e.accountId,
          messageId: e.messageId,
          kind: e.kind,
          segmentNumber: e.segmentNumber,
          payload: e.payload,
          attempts: 0,
          retryFrom: now,
        });
      }
      // A leased event's next attempt is its lease's end, as a claim writes it (webhook-queries.ts).
      return [
        e.id,
        e.accountId,
        e.messageId,
        e.kind,
        e.segmentNumber,
        e.sequence,
        e.payload,
        "pending",
        0,
        lease ? until : now,
        now,
        null,
        e.at,
        lease ? taker!.owner : null,
        lease ? until : null,
      ];
    }),
  );
}

/**
 * Of `events`, at most `room` that may go at once: each the first of its message among them (in the order a claim
 * serves them: time, sequence, id), of a message with no event pending already.
 */
function* leasable(events: NewEvent[], room: number): Steps<Set<NewEvent>> {
  const first = new Map<string, NewEvent>();
  for (const e of events) {
    const seen = first.get(e.messageId);
    if (!seen || earlier(e, seen)) first.set(e.messageId, e);
  }
  const candidates = [...first.values()].slice(0, room);
  if (candidates.length === 0) return new Set();
  const pending = yield* messagesWithPendingEventsSteps(candidates.map((e) => e.messageId));
  return new Set(candidates.filter((e) => !pending.has(e.messageId)));
}

function earlier(a: NewEvent, b: NewEvent): boolean {
  const at = a.at.getTime() - b.at.getTime();
  if (at !== 0) return at < 0;
  if (a.sequence !== b.sequence) return a.sequence < b.sequence;
  return a.id < b.id;
}

/** A dispatcher of this process that takes events as they are written, leased to it. */
export interface EventTaker {
  /** The lease owner it claims as. */
  readonly owner: string;
  /** How many more events it would take now. */
  room(): number;
  /** The end of a lease taken at `now` (ms since the epoch). */
  leaseUntil(now: number): number;
  /** Events leased to it until `leaseUntil`, by a transaction that has committed. */
  take(events: ClaimedEvent[], leaseUntil: number): void;
}

// Dispatchers in this process are told when it wrote events, so the first attempt need not wait for a poll. (Where
// the events were written inside a caller's own transaction, that may not have committed yet: a dispatcher that
// finds nothing looks again at its next poll.) Those that take events (`taker`) may get them leased already.
const listeners = new Set<() => void>();
const takers = new Set<EventTaker>();
export function onEventsWritten(listener: () => void, taker?: EventTaker): () => void {
  listeners.add(listener);
  if (taker) takers.add(taker);
  return () => {
    listeners.delete(listener);
    if (taker) takers.delete(taker);
  };
}
function notifyEventsWritten(): void {
  for (const listener of listeners) setImmediate(listener);
}
function takerWithRoom(): EventTaker | null {
  for (const taker of takers) if (taker.room() > 0) return taker;
  return null;
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
