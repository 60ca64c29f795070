// Pacing rules, pure (no clock, no database): the worker asks them with the time and the stored state.
// The seed: at most one text a second leaves a `from` number, each segment counting as a message; an account
// limit caps the sum; bulk yields to ad hoc, uses at most a share of the account limit, and leaves only inside
// the bulk window in the destination's local time.

export interface NumberPace {
  /** Earliest time (ms) the number's next segment may leave; null when it never sent. */
  nextSendAt: number | null;
  ratePerSecond: number;
}

export interface AccountPace {
  nextSendAt: number | null;
  bulkNextSendAt: number | null;
  ratePerSecond: number;
  bulkShare: number;
}

/** When a segment may leave the number: now if the number is idle, else its next slot. */
export function numberSlot(now: number, pace: NumberPace): number {
  return Math.max(now, pace.nextSendAt ?? now);
}

/** The account's next slot for a segment; bulk segments also need a slot of the (slower) bulk lane. */
export function accountSlot(now: number, pace: AccountPace, bulk: boolean): number {
  const any = Math.max(now, pace.nextSendAt ?? now);
  if (!bulk) return any;
  return Math.max(any, pace.bulkNextSendAt ?? now);
}

/** The state after a segment leaves at `at`: each clock moves on by one interval of its own rate. */
export function afterSend(at: number, pace: NumberPace): NumberPace {
  return { ...pace, nextSendAt: at + 1000 / pace.ratePerSecond };
}

export function afterAccountSend(at: number, pace: AccountPace, bulk: boolean): AccountPace {
  const next: AccountPace = { ...pace, nextSendAt: at + 1000 / pace.ratePerSecond };
  if (bulk) next.bulkNextSendAt = at + 1000 / (pace.ratePerSecond * pace.bulkShare);
  return next;
}

/** "HH:mm" → minutes after midnight. */
function minutes(hhmm: string): number {
  const [h, m] = hhmm.split(":").map(Number);
  return (h ?? 0) * 60 + (m ?? 0);
}

const formatters = new Map<string, Intl.DateTimeFormat>();

/** Minutes after local midnight at `now` in `timeZone` (an IANA name). */
export function localMinutes(now: number, timeZone: string): number {
  let format = formatters.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat("en-GB", { timeZone, hour: "2-digit", minute: "2-digit", hourCycle: "h23" });
    formatters.set(timeZone, format);
  }
  const parts = format.formatToParts(new Date(now));
  const hour = Number(parts.find((p) => p.type === "hour")?.value ?? 0);
  const minute = Number(parts.find((p) => p.type === "minute")?.value ?? 0);
  return hour * 60 + minute;
}

/** Whether bulk may leave now for a destination in `timeZone`; a window may wrap past midnight (22:00–06:00). */
export function insideBulkWindow(now: number, timeZone: string, window: { start: string; end: string }): boolean {
  const at = localMinutes(now, timeZone);
  const start = minutes(window.start);
  const end = minutes(window.end);
  if (start === end) return true;
  return start < end ? at >= start && at < end : at >= start || at < end;
}

export interface Candidate {
  messageId: string;
  bulk: boolean;
  inProgress: boolean;
  eligibleAt: number | null;
  createdAt: number;
}

/**
 * The order a number's queue is served in: a message already partly sent first (its parts stay together), then
 * ad hoc before bulk, each oldest first. Messages waiting for a retry time are passed over until it comes.
 */
export function nextInQueue<T extends Candidate>(now: number, queue: T[], bulkAllowed: (c: T) => boolean): T | null {
  const ready = queue.filter((c) => c.eligibleAt === null || c.eligibleAt <= now);
  const ordered = ready.sort(
    (a, b) =>
      Number(b.inProgress) - Number(a.inProgress) || Number(a.bulk) - Number(b.bulk) || a.createdAt - b.createdAt,
  );
  for (const candidate of ordered) {
    if (candidate.inProgress || !candidate.bulk || bulkAllowed(candidate)) return candidate;
  }
  return null;
}
