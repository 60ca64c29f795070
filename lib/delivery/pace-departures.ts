import type { Logger } from "pino";
import type { Carrier, SubmitResult } from "../carriers/carrier";
import { afterSend } from "../throttle/pacing-policy";
import { LEASE_MARGIN_MS, type NumberLeases } from "./lease-numbers";
import type { Allocation } from "./plan-round";

/** A part not handed to the carrier: its number's lease is about to run out, or was lost. */
export class LeaseLost extends Error {
  constructor(readonly number: string) {
    super(`the lease on ${number} runs out`);
  }
}

/** A reserved part and the carrier's answer (null: it did not leave), at the time it left. */
export interface RoundResult {
  allocation: Allocation;
  result: SubmitResult | null;
  at: number;
}

export interface DepartureOptions {
  carrier: Carrier;
  leases: NumberLeases;
  /** Milliseconds since the epoch: the slots, as stored for other workers. */
  clock: () => number;
  /** The steady clock the interval between a number's parts is measured on (see WorkerOptions.intervalClock). */
  intervalClock: () => number;
  spacingGuardMs: number;
  leaseMs: number;
  log: Logger;
  /** A part the carrier took: a receipt for it may come before the round is recorded. */
  submitted: (carrierMessageId: string) => void;
  /** Each part's result as soon as it is known (the carrier's answer, or null: it did not leave), to be recorded. */
  answered: (result: RoundResult) => void;
}

/** Hands a round's reserved parts to the carrier, each at its slot, each answer to `answered`; resolves once all are. */
export async function departRound(reserved: Allocation[], options: DepartureOptions): Promise<void> {
  const { carrier, leases, clock, intervalClock, spacingGuardMs, leaseMs, log } = options;
  await Promise.all(
    reserved.map(async (allocation): Promise<void> => {
      // The slot, or a full interval after the number's last part really left if that one was late.
      const from = allocation.part.from;
      const interval = 1000 / (leases.held.get(from)?.pace.ratePerSecond ?? 1);
      // Until the slot (the shared wall clock, as stored for other workers) and a full interval after the
      // previous part (the steady clock).
      const wait = () =>
        Math.max(
          allocation.at - clock(),
          (leases.lastLeft.get(from) ?? -Infinity) + interval + spacingGuardMs - intervalClock(),
        );
      const waitForPace = async () => {
        for (let ms = wait(); ms > 0; ms = wait()) await new Promise((resolve) => setTimeout(resolve, Math.ceil(ms)));
      };
      // Fencing: a part leaves only while this worker's lease on its number has time to run (see LEASE_MARGIN_MS).
      // A worker held up past its lease (a pause, a stalled database, a wait for the carrier) sends nothing more:
      // another may have taken the number over.
      // A number slower than one part per lease period (a rate under ~1/27 per second with the default 30 s lease)
      // is fenced over the most the renewed lease can hold, less a margin: otherwise it could never send. Taken
      // over from a worker paused right after such a part, its next part may then follow after the lease period
      // rather than the full interval.
      const fenceSpan = Math.min(interval, leaseMs - 3 * LEASE_MARGIN_MS);
      const fenced = () => {
        const held = leases.held.get(from);
        if (!held || held.holding !== allocation.holding || clock() + fenceSpan + LEASE_MARGIN_MS > held.leaseUntil)
          throw new LeaseLost(from);
      };
      await waitForPace();
      let leftAt = clock();
      // The part "leaves" when the carrier has written it: that time is what pacing promises and records, read
      // after the write so that nothing (a busy machine, a paused process) can make the write later than what
      // the next part waits from. The carrier asks right before writing, after any wait of its own (a full SMPP
      // window), which may need a wait more if the number's previous part was itself held up.
      const departure = {
        leave: () => (wait() > 0 ? waitForPace().then(fenced) : fenced()),
        left: () => {
          leftAt = clock();
          leases.lastLeft.set(from, intervalClock());
          // The wall clock reads whole milliseconds: the guard keeps the stored slot a full interval after the write.
          const next = leftAt + spacingGuardMs;
          const held = leases.held.get(from);
          if (held && (held.pace.nextSendAt ?? 0) < next + interval) held.pace = afterSend(next, held.pace);
        },
      };
      let result: SubmitResult | null;
      try {
        result = await carrier.submit(allocation.part, departure);
      } catch (error) {
        if (error instanceof LeaseLost) {
          leases.giveBackSlot(allocation);
          log.warn(
            { number: from, messageId: allocation.message.messageId, segment: allocation.part.segmentNumber },
            "part not sent: the number's lease runs out; the next holder of the number sends it",
          );
          result = null;
        } else {
          result = { ok: false, temporary: true, code: "CARRIER_ERROR", detail: (error as Error).message };
        }
      }
      if (result?.ok) options.submitted(result.carrierMessageId);
      options.answered({ allocation, result, at: leftAt });
    }),
  );
}
