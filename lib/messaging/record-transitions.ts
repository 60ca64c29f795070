import type { Db } from "../db/client";
import type { SdrRow } from "../db/insert-rows";
import { runSteps, type Steps } from "../db/steps";
import { updateMessagesSteps, type MessageChange, type MessageGuard } from "../delivery/delivery-queries";
import { enqueueDeliveryStatusEventSteps, enqueueInboundEvent } from "../webhooks/enqueue-events";
import { insertSdrsSteps } from "./write-sdrs";

// The one way a message's state changes: its row (status and the delivery columns), the SDRs that log the change
// (what the live view and /v3/sdrs read), the webhook events the change implies (a `message-status` event per part
// outcome, from the outbox in lib/webhooks/enqueue-events.ts) and the live view's wake-up once committed
// (announceChanges, from write-sdrs.ts), all in the caller's one transaction, so a committed change always has its
// log and its event and a rolled-back one has neither. Callers: the worker's reservations (round-queries.ts) and
// answers (record-outcomes.ts), receipts (record-receipt.ts), expiry (expire-messages.ts), inbound messages
// (receive-message.ts), a STOP's cancellations and its automatic reply (lib/opt/apply-opt-keyword.ts), and the
// `status_failed` SDR of a webhook given up on (lib/webhooks/webhook-dispatcher.ts).
// The one exception: the group commit of sends (lib/db/group-commit.ts) inserts the new messages' `accepted`/`queued`
// (or `rejected`) SDRs in its own batched statement, on SQLite in its writer thread, and wakes the live view through
// the hook send-message.ts gives it. lib/db may not import this module (db-is-the-bottom), the rows it writes are new
// messages rather than changes to stored ones, and no event follows from them; routing them here would cost the
// API's hottest path its one-statement batch.
// Statements stay batched: one UPDATE per distinct change (a chunk of ids each), one multi-row INSERT for the SDRs,
// one read of the messages' webhook endpoints when the SDRs hold outcomes.

/** One change to many messages. */
export interface MessageTransition {
  ids: string[];
  set: MessageChange;
  /**
   * A compare-and-set: only messages still matching it change. The SDRs of those that did not are not written (and
   * so imply no event); recordTransitions returns their ids.
   */
  onlyFrom?: MessageGuard;
}

export interface Transitions {
  /** The messages' changes (none when only SDRs are logged, e.g. a part's progress or a webhook given up on). */
  changes?: MessageTransition[];
  sdrs?: SdrRow[];
  /** When the change is made: the messages' updatedAt. */
  at: Date;
}

/**
 * Writes `transitions` as steps of the caller's transaction (writeTransaction, or runSteps in a Prisma one); the
 * live view is woken by the transaction's after-commit work. Returns the ids of the messages a guarded change left
 * as they were.
 */
export function* recordTransitions(transitions: Transitions): Steps<Set<string>> {
  const unmoved = new Set<string>();
  for (const change of transitions.changes ?? []) {
    if (change.ids.length === 0) continue;
    const moved = yield* updateMessagesSteps(change.set, change.ids, transitions.at, change.onlyFrom);
    if (change.onlyFrom) for (const id of notIn(change.ids, moved)) unmoved.add(id);
  }
  const sdrs = keptSdrs(transitions.sdrs ?? [], unmoved);
  yield* insertSdrsSteps(sdrs);
  yield* enqueueDeliveryStatusEventSteps(sdrs);
  return unmoved;
}

type Tx = Parameters<Parameters<Db["$transaction"]>[0]>[0];

/** A message just stored by receiveMessage: its `message-received` event is written with its `received` SDR. */
export type ReceivedRow = Parameters<typeof enqueueInboundEvent>[1];

/**
 * recordTransitions inside a caller's Prisma transaction. Its after-commit work is added to `later` (a set: the
 * same wake-up asked for twice runs once), for the caller to run once that transaction has committed. With
 * `received`, the inbound message's event is written as well.
 */
export async function recordTransitionsInTx(
  tx: Tx,
  transitions: Transitions & { received?: ReceivedRow },
  later: Set<() => void>,
): Promise<Set<string>> {
  const unmoved = await runSteps(tx, recordTransitions(transitions), (run) => later.add(run));
  if (transitions.received) await enqueueInboundEvent(tx, transitions.received);
  return unmoved;
}

/** The SDRs of messages that took their change (all of them, when every change did). */
export function keptSdrs(sdrs: SdrRow[], unmoved: ReadonlySet<string>): SdrRow[] {
  return unmoved.size === 0 ? sdrs : sdrs.filter((s) => !unmoved.has(s.messageId));
}

function notIn(ids: string[], moved: string[]): string[] {
  const set = new Set(moved);
  return ids.filter((id) => !set.has(id));
}

/**
 * Messages that get the same change, gathered into one transition each (keyed by the change), so that a round's
 * many answers cost one UPDATE per distinct change rather than one per message. A message added more than once (a
 * part at a time) gets its changes applied in the order they were added, later fields winning: grouped change by
 * change instead, the groups' UPDATEs would run in the order the changes were first seen, and a message's second
 * part sharing the group of another message's last part would have its first part's change written after it.
 */
export class TransitionGroups {
  private readonly changes = new Map<string, MessageChange>();

  add(set: MessageChange, id: string): void {
    this.changes.set(id, { ...this.changes.get(id), ...set });
  }

  list(): MessageTransition[] {
    const groups = new Map<string, MessageTransition>();
    for (const [id, set] of this.changes) {
      const key = JSON.stringify(set);
      const group = groups.get(key);
      if (group) group.ids.push(id);
      else groups.set(key, { set, ids: [id] });
    }
    return [...groups.values()];
  }
}

/** An SDR row (the clock's time `at`, so injected clocks show in tests). */
export function sdrRow(
  messageId: string,
  accountId: string,
  status: string,
  at: number,
  extra: { statusDetails?: string; segmentNumber?: number; referenceId?: string | null } = {},
): SdrRow & { createdAt: Date } {
  return {
    messageId,
    accountId,
    status,
    statusDetails: extra.statusDetails ?? "",
    segmentNumber: extra.segmentNumber ?? null,
    referenceId: extra.referenceId ?? null,
    createdAt: new Date(at),
  };
}
