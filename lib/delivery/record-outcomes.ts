import { performance } from "node:perf_hooks";
import type { Logger } from "pino";
import { writeTransaction, type Steps } from "../db/steps";
import { uuidv7 } from "../db/ids";
import { chunks, insertRowsSteps, MESSAGE_PART_COLUMNS, type SdrRow } from "../db/insert-rows";
import { recordTransitions, sdrRow as sdr, TransitionGroups } from "../messaging/record-transitions";
import type { SubmitResult } from "../carriers/carrier";
import { metrics } from "../metrics/define-metrics";
import type { NumberLeases } from "./lease-numbers";
import type { RoundResult } from "./pace-departures";
import type { Allocation } from "./plan-round";
import { lockHeldNumbersSteps } from "./round-queries";

type Answered = RoundResult & { result: SubmitResult };

/** The most answers one transaction records (about 5 ms of the write lock on SQLite). */
const RECORD_CHUNK = 200;
/**
 * How long answers wait for others to be recorded with them while parts of their round are still out: fewer, larger
 * transactions, at a small cost to how soon a receipt for one of them is taken. (20 ms, tried first, cuts answers
 * coming at 2,000 a second into batches of about 40; `bench:kannel` accepted 3,546–3,692 sends a second with it,
 * 3,800–3,907 with 100.)
 */
const RECORD_WAIT_MS = 100;

/** A round's answers, recorded while its other parts are still leaving (OutcomeRecorder.recordAsAnswered). */
export interface RoundRecord {
  /** One part's result, as departRound gives it. */
  answered(result: RoundResult): void;
  /** Once every part has its result: resolves when all are recorded, or rejects with why recording ended. */
  finish(): Promise<void>;
}

export interface OutcomeOptions {
  workerId: string;
  leases: NumberLeases;
  leaseMs: number;
  validityMs: number;
  maxAttempts: number;
  retryDelaysMs: number[];
  /** Whether the worker is stopping: it then gives up on a round it cannot record. */
  stopped: () => boolean;
  log: Logger;
}

/**
 * A round's answers recorded: the parts sent, retried later, failed or rejected; the messages' changes, their SDRs
 * and webhook events go through recordTransitions.
 */
export class OutcomeRecorder {
  constructor(private readonly options: OutcomeOptions) {}

  /**
   * Writes a round's answers, trying again while the database cannot be reached, for up to a lease period: answers
   * dropped would send their parts again (a second copy for the phone). The fencing in recordSteps() keeps a late
   * write from overriding a worker that has taken the numbers over meanwhile. The answers are written in transactions
   * of RECORD_CHUNK: a round of thousands written in one held SQLite's write lock for 40–60 ms, which the send path
   * waited for. Each chunk is tried again on its own, so that one written is never written twice.
   */
  async recordPersistently(results: RoundResult[]): Promise<void> {
    const answered = results.filter((r): r is Answered => r.result !== null);
    // One chunk after the other (on PostgreSQL each is a transaction on a pooled connection). One given up on ends
    // the record there, as a round's single transaction did: the parts not recorded leave again from the number's
    // next holder.
    // A lease period from the first try bounds the tries of all its chunks together.
    const started = performance.now();
    for (const chunk of chunks(answered, RECORD_CHUNK)) countSubmits(await this.persist(chunk, started));
  }

  /**
   * Records a round's answers as they come in, rather than once its last part has left: a round of thousands of
   * parts takes about a second to leave through a window of submits, or longer behind one slow answer, and a
   * receipt for a part waits for that part's record (ReceiptBatches), its acknowledgement to the SMSC with it. A
   * message's answers are recorded together, in segment order, once all of its parts in the round have theirs;
   * answers wait RECORD_WAIT_MS for others (or until RECORD_CHUNK are in) and are written one batch after the other.
   * `recorded` hears of each batch once it is written or given up on. A batch given up on ends the record there, as
   * in recordPersistently: the later answers are not written (their parts leave again from the number's next holder).
   */
  recordAsAnswered(reserved: Allocation[], recorded: (results: RoundResult[]) => void): RoundRecord {
    const unanswered = new Map<string, number>();
    for (const { message } of reserved) unanswered.set(message.messageId, (unanswered.get(message.messageId) ?? 0) + 1);
    const answersOf = new Map<string, RoundResult[]>();
    let batch: RoundResult[] = [];
    let timer: NodeJS.Timeout | undefined;
    let written: Promise<void> = Promise.resolve();
    let givenUp: { error: unknown } | null = null;
    // One batch: written (its own lease period of tries, as a round's record had), then heard of; never rejects, so
    // that the batches after it are still written or, once one is given up on, still heard of.
    const writeBatch = async (results: RoundResult[]) => {
      try {
        if (!givenUp) await this.recordPersistently(results);
      } catch (error) {
        givenUp = { error };
      }
      try {
        recorded(results);
      } catch (error) {
        this.options.log.error({ err: error }, "a recorded batch's receipts could not be taken up");
      }
    };
    const flush = () => {
      clearTimeout(timer);
      timer = undefined;
      if (batch.length === 0) return;
      const results = batch;
      batch = [];
      written = written.then(() => writeBatch(results));
    };
    return {
      answered: (result) => {
        const id = result.allocation.message.messageId;
        const answers = answersOf.get(id) ?? [];
        answers.push(result);
        const left = (unanswered.get(id) ?? 1) - 1;
        unanswered.set(id, left);
        if (left > 0) {
          answersOf.set(id, answers);
          return;
        }
        answersOf.delete(id);
        answers.sort((a, b) => a.allocation.part.segmentNumber - b.allocation.part.segmentNumber);
        // A message's answers stay in one transaction: the batch is written first when they would take it past
        // RECORD_CHUNK.
        if (batch.length + answers.length > RECORD_CHUNK) flush();
        batch.push(...answers);
        if (batch.length >= RECORD_CHUNK) flush();
        else timer ??= setTimeout(flush, RECORD_WAIT_MS);
      },
      finish: async () => {
        flush();
        await written;
        if (givenUp) throw (givenUp as { error: unknown }).error;
      },
    };
  }

  private async persist(answered: Answered[], started: number): Promise<SdrRow[]> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await writeTransaction(() => this.recordSteps(answered));
      } catch (error) {
        if (this.options.stopped() || performance.now() - started > this.options.leaseMs) throw error;
        this.options.log.warn({ err: error, attempt }, "could not record the round's answers; trying again");
        await new Promise((resolve) => setTimeout(resolve, Math.min(1000, 100 * 2 ** attempt)));
      }
    }
  }

  /**
   * The carrier's answers for part of a round, written in a handful of statements: messages are updated in groups.
   * Only for the numbers this worker still holds (fencing): the transaction first locks the rows of its numbers that
   * still name it as their lease owner; the answers for a number another worker has taken over since (this one was
   * paused, or cut off from the database, past its lease) are dropped, for that worker sends those parts again and
   * records its own answers. A number whose lease ran out but that nobody took keeps its answers: no one else can
   * have sent for it meanwhile. Parts that were not handed to the carrier (`result` null) are left as they were.
   */
  private *recordSteps(answered: Answered[]): Steps<SdrRow[]> {
    const numbers = [...new Set(answered.map((r) => r.allocation.message.from))];
    const stillMine = new Set(yield* lockHeldNumbersSteps(this.options.workerId, numbers));
    const lost = numbers.filter((n) => !stillMine.has(n));
    if (lost.length > 0) {
      this.options.leases.drop(lost);
      this.options.log.warn(
        { numbers: lost, parts: answered.filter((r) => !stillMine.has(r.allocation.message.from)).length },
        "answers not recorded: another worker took these numbers over; it sends their parts again",
      );
    }
    return yield* this.write(answered.filter((r) => stillMine.has(r.allocation.message.from)));
  }

  private *write(results: Answered[]): Steps<SdrRow[]> {
    if (results.length === 0) return [];
    const { validityMs, maxAttempts } = this.options;
    const sdrs: SdrRow[] = [];
    const parts: unknown[][] = [];
    // Messages that get the same change are updated together, keyed by the change; a message's parts' changes are
    // applied in segment order first (TransitionGroups).
    const groups = new TransitionGroups();
    const change = groups.add.bind(groups);
    const roundTime = Math.max(...results.map((r) => r.at));
    for (const { allocation, result, at } of results) {
      const { message, part } = allocation;
      const seg = part.segmentNumber;
      if (result.ok) {
        // Time-ordered ids: the parts' primary key grows at its end instead of a random page a part.
        parts.push([uuidv7(), message.messageId, seg, result.carrierMessageId, "wait_dlr", new Date(at), null]);
        sdrs.push(
          sdr(message.messageId, message.accountId, "message_sent", at, {
            segmentNumber: seg,
            statusDetails: result.note ?? "",
          }),
        );
        const last = seg >= part.totalSegments;
        if (last) sdrs.push(sdr(message.messageId, message.accountId, "wait_dlr", at));
        change(
          {
            partsSubmitted: seg,
            attempts: 0,
            nextAttemptAt: null,
            ...(last ? { status: "sent", expiresAt: new Date(roundTime + validityMs) } : {}),
          },
          message.messageId,
        );
      } else if (result.temporary && message.attempts + 1 < maxAttempts) {
        const attempts = message.attempts + 1;
        const retryAt = roundTime + Math.max(this.retryDelay(attempts), result.retryAfterMs ?? 0);
        sdrs.push(
          sdr(message.messageId, message.accountId, "retry", at, {
            segmentNumber: seg,
            statusDetails: `${result.code} ${result.detail}; attempt ${attempts + 1} at ${new Date(retryAt).toISOString()}`,
          }),
        );
        change(
          { attempts, nextAttemptAt: new Date(retryAt), status: message.partsSubmitted > 0 ? "sending" : "queued" },
          message.messageId,
        );
      } else {
        const outcome = result.temporary ? "failed" : (result.final ?? "rejected");
        sdrs.push(
          sdr(message.messageId, message.accountId, outcome, at, {
            segmentNumber: seg,
            statusDetails: `${result.code} ${result.detail}${result.temporary ? `; gave up after ${maxAttempts} attempts` : ""}`,
            referenceId: message.referenceId,
          }),
        );
        change({ status: outcome, nextAttemptAt: null }, message.messageId);
      }
    }
    yield* insertRowsSteps("MessagePart", MESSAGE_PART_COLUMNS, parts);
    yield* recordTransitions({ changes: groups.list(), sdrs, at: new Date() });
    return sdrs;
  }

  private retryDelay(attempts: number): number {
    const delays = this.options.retryDelaysMs;
    return delays[Math.min(attempts - 1, delays.length - 1)]!;
  }
}

/** The submit counters, from a recorded round's SDRs: a part accepted, retried later, failed or rejected. */
function countSubmits(sdrs: SdrRow[]): void {
  const m = metrics();
  let submitted = 0;
  for (const record of sdrs) {
    if (record.status === "message_sent") submitted += 1;
    else if (record.status === "retry" || record.status === "failed" || record.status === "rejected")
      m.submitErrors.inc({ outcome: record.status });
  }
  if (submitted > 0) m.segmentsSubmitted.inc(submitted);
}
