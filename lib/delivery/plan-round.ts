import type { OutboundPart } from "../carriers/carrier";
import type { Encoding } from "../segments/count-segments";
import { splitSegments } from "../segments/split-segments";
import {
  accountSlot,
  afterAccountSend,
  afterSend,
  insideBulkWindow,
  nextInQueue,
  numberSlot,
  type AccountPace,
  type NumberPace,
} from "../throttle/pacing-policy";

// A delivery round planned, pure (no clock, no database): given the numbers the worker holds, their queues, their
// accounts' limits and bulk windows, the destinations' zones and the time, which part of which message may leave
// when. The worker reads what this needs, and writes what it decides (lib/delivery/round-queries.ts).

export interface HeldNumber {
  number: string;
  accountId: string;
  pace: NumberPace;
  /** Until when this worker's lease on the number holds (as stored by its last claim): no part leaves after it. */
  leaseUntil: number;
  /**
   * Which unbroken holding of the number this is. A new one begins when the worker claims the number after its
   * lease lapsed: another worker may have held the number meanwhile and sent what this one had reserved before.
   */
  holding: number;
}

export interface QueuedMessage {
  messageId: string;
  accountId: string;
  from: string;
  to: string;
  body: string;
  media: string[];
  numSegments: number;
  encoding: Encoding;
  bulk: boolean;
  inProgress: boolean;
  partsSubmitted: number;
  attempts: number;
  eligibleAt: number | null;
  createdAt: number;
  referenceId: string | null;
  /** The send's validity (validitySeconds): a message not begun by then never leaves (due-messages.ts expires it). */
  validUntil: number | null;
}

export interface AccountState {
  id: string;
  pace: AccountPace;
  stored: { nextSendAt: Date | null; bulkNextSendAt: Date | null };
  timeZone: string;
  window: { start: string; end: string };
}

export interface Allocation {
  message: QueuedMessage;
  part: OutboundPart;
  at: number;
  /** The holding of the number the part was reserved under: it leaves only while that holding lasts. */
  holding: number;
  /** The number's next slot before and after this part took its slot (see NumberLeases.giveBackSlot). */
  slot: { before: number | null; after: number | null };
}

/**
 * How far ahead of `now` a round takes parts. A round takes parts whose slots come before its parts can leave: the
 * next poll, or the time a round takes to prepare when that is longer (tens of milliseconds on a busy database), so
 * that preparing never makes a part late.
 */
export function roundHorizon(now: number, pollMs: number, preparationMs: number): number {
  return now + Math.max(pollMs, Math.min(1000, Math.ceil(2 * preparationMs)));
}

/** The held numbers with no part in flight whose next slot comes by the horizon, earliest slot first. */
export function readyNumbers(
  now: number,
  horizon: number,
  held: Iterable<HeldNumber>,
  busy: ReadonlySet<string>,
): HeldNumber[] {
  return [...held]
    .filter((n) => !busy.has(n.number) && numberSlot(now, n.pace) <= horizon)
    .sort((a, b) => (a.pace.nextSendAt ?? 0) - (b.pace.nextSendAt ?? 0));
}

/** The destinations whose time zone planning needs: those of bulk messages not yet begun. */
export function bulkDestinations(queues: ReadonlyMap<string, QueuedMessage[]>): string[] {
  const destinations = new Set<string>();
  for (const queue of queues.values()) for (const m of queue) if (m.bulk && !m.inProgress) destinations.add(m.to);
  return [...destinations];
}

export interface RoundPlan {
  /** The parts that may leave, each at its slot, in the order their numbers were served. */
  allocations: Allocation[];
  /** The numbers' paces once their parts have taken their slots (only the numbers that got a part). */
  numberPaces: Map<string, NumberPace>;
  /** The accounts' paces once their parts have taken their slots (only the accounts that got a part). */
  accountPaces: Map<string, AccountPace>;
}

/**
 * At most one part per number: the next of its queue that pacing allows by the horizon (`ready` as readyNumbers
 * gives it). Each part takes its number's slot and its account's, so later numbers of the same account wait for the
 * account's next slot. `zones` holds the destinations' zones (null: unknown, the account's zone counts).
 */
export function planRound(input: {
  now: number;
  horizon: number;
  ready: readonly HeldNumber[];
  queues: ReadonlyMap<string, QueuedMessage[]>;
  accounts: ReadonlyMap<string, AccountState>;
  zones: ReadonlyMap<string, string | null>;
}): RoundPlan {
  const { now, horizon, queues, accounts, zones } = input;
  // Ad hoc before bulk across an account's numbers too: its slots go first to the numbers whose next message is
  // ad hoc (the sort keeps the order of their slots otherwise).
  const bulkNext = (n: HeldNumber) => (queues.get(n.number)?.[0]?.bulk ? 1 : 0);
  const ready = [...input.ready].sort((a, b) => bulkNext(a) - bulkNext(b));

  const allocations: Allocation[] = [];
  const numberPaces = new Map<string, NumberPace>();
  const accountPaces = new Map<string, AccountPace>();
  for (const held of ready) {
    const account = accounts.get(held.accountId);
    // A message whose validity ran out before it began is not sent late; the worker's next look expires it.
    const queue = queues.get(held.number)?.filter((m) => m.inProgress || !lapsed(m, now));
    if (!account || !queue || queue.length === 0) continue;
    const accountPace = accountPaces.get(account.id) ?? account.pace;
    const candidate = nextInQueue(now, queue, (m) => {
      if (accountSlot(now, accountPace, true) > horizon) return false;
      return insideBulkWindow(now, zones.get(m.to) ?? account.timeZone, account.window);
    });
    if (!candidate) continue;
    const at = Math.max(numberSlot(now, held.pace), accountSlot(now, accountPace, candidate.bulk));
    if (at > horizon) continue;
    const bulkLane = candidate.bulk;
    const pace = afterSend(at, held.pace);
    numberPaces.set(held.number, pace);
    accountPaces.set(account.id, afterAccountSend(at, accountPace, bulkLane));
    allocations.push({
      message: candidate,
      part: partOf(candidate),
      at,
      holding: held.holding,
      slot: { before: held.pace.nextSendAt, after: pace.nextSendAt },
    });
  }
  return { allocations, numberPaces, accountPaces };
}

function lapsed(message: QueuedMessage, now: number): boolean {
  return message.validUntil !== null && message.partsSubmitted === 0 && message.validUntil <= now;
}

/** The next part of a message, ready for the carrier. */
export function partOf(message: QueuedMessage): OutboundPart {
  const segmentNumber = message.partsSubmitted + 1;
  let text = message.body;
  let totalSegments = message.numSegments;
  if (message.media.length === 0 && message.numSegments > 1) {
    const { parts } = splitSegments(message.body);
    text = parts[message.partsSubmitted] ?? "";
    totalSegments = parts.length;
  }
  return {
    messageId: message.messageId,
    segmentNumber,
    totalSegments,
    // One reference per message for the receiver to join its parts: derived from the id, stable across retries.
    concatReference: parseInt(message.messageId.slice(-2), 16),
    from: message.from,
    to: message.to,
    text,
    messageText: message.body,
    encoding: message.encoding,
    media: message.media,
    validUntil: message.validUntil,
  };
}
