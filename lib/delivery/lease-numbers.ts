import { writeTransaction, type Steps } from "../db/steps";
import type { Allocation, HeldNumber } from "./plan-round";
import {
  heldNumbersSteps,
  leaseNumbersSteps,
  pendingNumbersSteps,
  releaseNumbersSteps,
  storedTime,
  type HeldRow,
} from "./round-queries";

/**
 * A part leaves only while its number's lease has this much to run beyond one interval: the worker that takes the
 * number over when the lease has run out sends its first part a full interval after this one, even if this process
 * was held up for up to this long between its last look at the clock and the write.
 */
export const LEASE_MARGIN_MS = 1000;

/**
 * The numbers one worker holds. Numbers with pending work are claimed with a lease in the database, so that no part
 * is submitted by two workers; renewing it is part of every claim round. While a number is held, its pace lives
 * here, in memory, and is written back when the number is given back.
 */
export class NumberLeases {
  private current = new Map<string, HeldNumber>();
  /** The last holding begun (see HeldNumber.holding). */
  private holdings = 0;
  /** When each held number's last part really left (intervalClock): the next waits a full interval after it. */
  readonly lastLeft = new Map<string, number>();

  constructor(private readonly options: { workerId: string; leaseMs: number; maxNumbers: number }) {}

  /** The numbers held, as of the last claim, less those found lost since. */
  get held(): ReadonlyMap<string, HeldNumber> {
    return this.current;
  }

  async claim(now: number): Promise<void> {
    const mine = await writeTransaction(() => this.claimSteps(now));
    // A set: a worker may hold thousands of numbers, and a claim runs several times a second.
    const held = new Set(mine.map((n) => n.number));
    for (const number of this.lastLeft.keys()) if (!held.has(number)) this.lastLeft.delete(number);
    // A number held already keeps its pace from memory (the stored one is written only on release).
    const previous = this.current;
    this.current = new Map(
      mine.map((n) => {
        const before = previous.get(n.number);
        const stored = storedTime(n.nextSendAt);
        const remembered = before?.pace.nextSendAt ?? null;
        const nextSendAt = stored === null ? remembered : remembered === null ? stored : Math.max(stored, remembered);
        return [
          n.number,
          {
            number: n.number,
            accountId: n.accountId,
            pace: { nextSendAt, ratePerSecond: Number(n.ratePerSecond) },
            leaseUntil: storedTime(n.leaseUntil) ?? 0,
            // While the lease had time to run (with the fence's margin) no other worker could take the number.
            holding: before && before.leaseUntil - LEASE_MARGIN_MS > now ? before.holding : (this.holdings += 1),
          },
        ];
      }),
    );
  }

  private *claimSteps(now: number): Steps<HeldRow[]> {
    const { workerId, leaseMs, maxNumbers } = this.options;
    const numbers = yield* pendingNumbersSteps(maxNumbers);
    yield* leaseNumbersSteps(workerId, numbers, now, leaseMs);
    // Numbers whose queue ran dry go back, so that another worker may take them when work comes.
    const pendingSet = new Set(numbers);
    yield* this.releaseSteps([...this.current.keys()].filter((n) => !pendingSet.has(n)));
    return yield* heldNumbersSteps(workerId);
  }

  /** Writes the held numbers' next slots (kept in memory while held) and gives them back, in one statement a chunk. */
  async release(numbers: string[]): Promise<void> {
    if (numbers.length > 0) await writeTransaction(() => this.releaseSteps(numbers));
  }

  private releaseSteps(numbers: string[]): Steps<void> {
    return releaseNumbersSteps(this.options.workerId, numbers, (n) => this.current.get(n)?.pace.nextSendAt);
  }

  /** Forgets numbers whose lease another worker has taken, or that ran out: their parts do not leave from here. */
  drop(numbers: Iterable<string>): void {
    for (const number of numbers) this.current.delete(number);
  }

  clear(): void {
    this.current.clear();
  }

  /**
   * A part that did not leave (not reserved, or fenced before its write) gives its number's slot back, so that the
   * number's next part does not wait an interval for nothing (100 s at 0.01/s). Only while the number is held in the
   * same holding and no slot was taken after this one: otherwise the pace as claimed (maybe another worker's) stands.
   */
  giveBackSlot(allocation: Allocation): void {
    const held = this.current.get(allocation.message.from);
    if (!held || held.holding !== allocation.holding || held.pace.nextSendAt !== allocation.slot.after) return;
    held.pace = { ...held.pace, nextSendAt: allocation.slot.before };
  }
}
