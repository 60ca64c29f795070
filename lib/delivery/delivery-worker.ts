import { hostname } from "node:os";
import { performance } from "node:perf_hooks";
import { randomBytes } from "node:crypto";
import { dbProvider } from "../db/client";
import { execute, query, readTransaction, writeTransaction, type Steps } from "../db/steps";
import { uuidv4 } from "../db/ids";
import { logger } from "../log";
import type { Carrier, DeliveryReceipt, InboundMessage, OutboundPart, SubmitResult } from "../carriers/carrier";
import { splitSegments } from "../segments/split-segments";
import type { Encoding } from "../segments/count-segments";
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
import { destinationTimeZone } from "./destination-time-zone";
import { sdr } from "./sdr-writer";
import {
  binder,
  boundValue,
  chunks,
  insertRowsSteps,
  insertSdrsSteps,
  MESSAGE_PART_COLUMNS,
  placeholder,
  placeholderList,
  type SdrRow,
} from "../db/insert-rows";
import { recordReceipts } from "./record-receipt";
import { updateMessages, type MessageChange } from "./update-messages";
import { expireOverdueParts } from "./expire-messages";
import { receiveMessage } from "../messaging/receive-message";
import { enqueueDeliveryStatusEventSteps } from "../webhooks/enqueue-events";
import { startHeartbeat, type WorkerHeartbeat } from "./worker-heartbeat";
import { metrics } from "../metrics/define-metrics";

export interface WorkerOptions {
  carrier: Carrier;
  /** Milliseconds since the epoch; tests inject a clock to check pacing without waiting. */
  clock?: () => number;
  pollMs?: number;
  leaseMs?: number;
  validityMs?: number;
  maxAttempts?: number;
  /** Delays after temporary submit errors: about 5 s, 30 s, 2 min, 10 min, then every 30 min. */
  retryDelaysMs?: number[];
  workerId?: string;
  /** Numbers one worker holds at most. */
  maxNumbers?: number;
  /**
   * Measures the interval between a number's parts: a clock that only moves forward at a steady pace, so that a
   * step of the wall clock (NTP, a VM resumed) cannot shorten it. Defaults to `clock` when that is injected, else
   * performance.now().
   */
  intervalClock?: () => number;
  /**
   * A number's next part waits this much more than its interval after the previous one's departure, read right after
   * its write: the wall clock reads whole milliseconds, so the stored slot another worker waits for is rounded up by
   * it. Default 1 ms; 0 with an injected clock.
   */
  spacingGuardMs?: number;
}

interface HeldNumber {
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

interface QueuedMessage {
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
}

interface AccountState {
  id: string;
  pace: AccountPace;
  stored: { nextSendAt: Date | null; bulkNextSendAt: Date | null };
  timeZone: string;
  window: { start: string; end: string };
}

interface Allocation {
  message: QueuedMessage;
  part: OutboundPart;
  at: number;
  /** The holding of the number the part was reserved under: it leaves only while that holding lasts. */
  holding: number;
  /** The number's next slot before and after this part took its slot (see giveBackSlot). */
  slot: { before: number | null; after: number | null };
}

/**
 * A part leaves only while its number's lease has this much to run beyond one interval: the worker that takes the
 * number over when the lease has run out sends its first part a full interval after this one, even if this process
 * was held up for up to this long between its last look at the clock and the write.
 */
const LEASE_MARGIN_MS = 1000;

/** A part not handed to the carrier: its number's lease is about to run out, or was lost. */
class LeaseLost extends Error {
  constructor(readonly number: string) {
    super(`the lease on ${number} runs out`);
  }
}

interface PendingReceipt {
  receipt: DeliveryReceipt;
  attempt: number;
  resolve: () => void;
  reject: (e: unknown) => void;
}

export class DeliveryWorker {
  readonly id: string;
  private readonly carrier: Carrier;
  private readonly clock: () => number;
  private readonly pollMs: number;
  private readonly leaseMs: number;
  private readonly validityMs: number;
  private readonly maxAttempts: number;
  private readonly retryDelaysMs: number[];
  private readonly maxNumbers: number;
  private readonly intervalClock: () => number;
  private readonly spacingGuardMs: number;
  /** A running average of how long a round takes from its start until its parts may leave (loading, reserving). */
  private preparationMs = 0;
  private held = new Map<string, HeldNumber>();
  /** The last holding begun (see HeldNumber.holding). */
  private holdings = 0;
  /** When each held number's last part really left (intervalClock): the next waits a full interval after it. */
  private lastLeft = new Map<string, number>();
  private lastClaim = 0;
  private lastSweep = 0;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  /**
   * Rounds whose parts are being handed to the carrier and recorded: the next round is prepared meanwhile (delivery
   * is pipelined), for the numbers that have no part in flight (`busy`). A number's next part is chosen only once
   * its previous one is recorded, so a message's parts go in order and no part is taken twice.
   */
  private inFlight = new Set<Promise<void>>();
  private busy = new Set<string>();
  private stopped = true;
  private heartbeat: WorkerHeartbeat | null = null;
  private unobserveCarrier: (() => void) | null = null;
  private readonly log = logger().child({ component: "worker" });

  constructor(options: WorkerOptions) {
    this.carrier = options.carrier;
    this.clock = options.clock ?? Date.now;
    this.pollMs = options.pollMs ?? 100;
    this.leaseMs = options.leaseMs ?? 30_000;
    this.validityMs = options.validityMs ?? 48 * 3600_000;
    this.maxAttempts = options.maxAttempts ?? 8;
    this.retryDelaysMs = options.retryDelaysMs ?? [5_000, 30_000, 120_000, 600_000, 1_800_000];
    this.maxNumbers = options.maxNumbers ?? 10_000;
    this.intervalClock = options.intervalClock ?? options.clock ?? (() => performance.now());
    this.spacingGuardMs = options.spacingGuardMs ?? (options.clock ? 0 : 1);
    this.id = options.workerId ?? `${hostname()}:${process.pid}:${randomBytes(3).toString("hex")}`;
  }

  async start(): Promise<void> {
    this.stopped = false;
    await this.carrier.start({
      onReceipt: (receipt) => this.handleReceipt(receipt),
      onInbound: (message) => this.handleInbound(message),
    });
    this.heartbeat = await startHeartbeat(this.id, this.carrier);
    this.unobserveCarrier = metrics().observeCarrier(this.carrier);
    const loop = () => {
      if (this.stopped) return;
      this.running = this.step()
        .catch((error) => this.log.error({ err: error }, "worker tick failed"))
        .finally(() => {
          this.running = null;
          if (!this.stopped) this.timer = setTimeout(loop, this.pollMs);
        });
    };
    loop();
    this.log.info({ workerId: this.id, carrier: this.carrier.name }, "delivery worker started");
  }

  /** Stops taking work, lets the round in flight finish, gives its numbers back, and closes the carrier. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
    await this.settle();
    await this.release([...this.held.keys()]).catch((error) =>
      this.log.warn({ err: error }, "could not release numbers"),
    );
    this.held.clear();
    await this.carrier.stop();
    this.unobserveCarrier?.();
    this.unobserveCarrier = null;
    await this.heartbeat?.stop();
    this.heartbeat = null;
    this.log.info({ workerId: this.id }, "delivery worker stopped");
  }

  /** One scheduling round, and everything it hands to the carrier sent and recorded. */
  async tick(): Promise<void> {
    await this.step();
    await this.settle();
  }

  /** Until the rounds in flight are sent and recorded. */
  private async settle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight]);
  }

  /**
   * Claims numbers, reserves the parts pacing allows now and starts handing them to the carrier (without waiting
   * for that: see `inFlight`), sweeps expired receipts.
   */
  private async step(): Promise<void> {
    const now = this.clock();
    if (now - this.lastClaim >= Math.min(1000, this.leaseMs / 3) || this.held.size === 0) {
      await this.claimNumbers(now);
      this.lastClaim = now;
    }
    if (this.held.size > 0) await this.sendRound(now);
    // Receipts overdue: looked for every 10 s, or more often when the validity itself is short.
    if (now - this.lastSweep >= Math.min(10_000, this.validityMs / 4)) {
      this.lastSweep = now;
      await expireOverdueParts(now);
    }
  }

  // Numbers with pending work are claimed with a lease; renewing it is part of every claim round.
  private async claimNumbers(now: number): Promise<void> {
    const mine = await writeTransaction(() => this.claimSteps(now));
    for (const number of this.lastLeft.keys()) if (!mine.some((n) => n.number === number)) this.lastLeft.delete(number);
    // A number held already keeps its pace from memory (the stored one is written only on release).
    const previous = this.held;
    this.held = new Map(
      mine.map((n) => {
        const before = previous.get(n.number);
        const stored = time(n.nextSendAt);
        const remembered = before?.pace.nextSendAt ?? null;
        const nextSendAt = stored === null ? remembered : remembered === null ? stored : Math.max(stored, remembered);
        return [
          n.number,
          {
            number: n.number,
            accountId: n.accountId,
            pace: { nextSendAt, ratePerSecond: Number(n.ratePerSecond) },
            leaseUntil: time(n.leaseUntil) ?? 0,
            // While the lease had time to run (with the fence's margin) no other worker could take the number.
            holding: before && before.leaseUntil - LEASE_MARGIN_MS > now ? before.holding : (this.holdings += 1),
          },
        ];
      }),
    );
  }

  private *claimSteps(now: number): Steps<HeldRow[]> {
    const pending = yield* query<{ fromNumber: string }>(
      `SELECT DISTINCT "fromNumber" FROM "Message" WHERE "status" IN ('queued', 'sending') AND "direction" = 'outbound' LIMIT ${this.maxNumbers}`,
    );
    const numbers = pending.map((p) => p.fromNumber);
    for (const chunk of chunks(numbers)) {
      const values: unknown[] = [];
      const bind = binder(values);
      yield* execute(
        `UPDATE "PhoneNumber" SET "leaseOwner" = ${bind("text", this.id)}, "leaseUntil" = ${bind("date", new Date(now + this.leaseMs))}
         WHERE "number" IN (${placeholderList(values, chunk)})
           AND ("leaseOwner" IS NULL OR "leaseOwner" = ${bind("text", this.id)} OR "leaseUntil" < ${bind("date", new Date(now))})`,
        values,
      );
    }
    // Numbers whose queue ran dry go back, so that another worker may take them when work comes.
    const pendingSet = new Set(numbers);
    yield* this.releaseSteps([...this.held.keys()].filter((n) => !pendingSet.has(n)));
    const values: unknown[] = [];
    return yield* query<HeldRow>(
      `SELECT "number", "accountId", "ratePerSecond", "nextSendAt", "leaseUntil" FROM "PhoneNumber"
       WHERE "leaseOwner" = ${binder(values)("text", this.id)}`,
      values,
    );
  }

  /** The first few messages of each number's queue, in the order pacing serves them. */
  private async loadQueues(numbers: string[]): Promise<Map<string, QueuedMessage[]>> {
    const rows = await readTransaction(() => queueSteps(numbers));
    const queues = new Map<string, QueuedMessage[]>();
    for (const m of rows) {
      const list = queues.get(m.fromNumber) ?? [];
      const partsSubmitted = Number(m.partsSubmitted);
      list.push({
        messageId: m.id,
        accountId: m.accountId,
        from: m.fromNumber,
        to: m.toNumber,
        body: m.body,
        media: JSON.parse(m.media) as string[],
        numSegments: Number(m.numSegments),
        encoding: m.encoding as Encoding,
        bulk: Boolean(m.bulk),
        inProgress: m.status === "sending" && partsSubmitted > 0,
        partsSubmitted,
        attempts: Number(m.attempts),
        eligibleAt: time(m.nextAttemptAt),
        createdAt: time(m.createdAt)!,
        referenceId: m.referenceId,
      });
      queues.set(m.fromNumber, list);
    }
    return queues;
  }

  private async loadAccounts(ids: string[]): Promise<Map<string, AccountState>> {
    const accounts = await readTransaction(() => accountSteps(ids));
    return new Map(
      accounts.map((a) => {
        const nextSendAt = time(a.nextSendAt);
        const bulkNextSendAt = time(a.bulkNextSendAt);
        return [
          a.id,
          {
            id: a.id,
            pace: {
              nextSendAt,
              bulkNextSendAt,
              ratePerSecond: Number(a.rateLimitPerSecond),
              bulkShare: Number(a.bulkShare),
            },
            stored: {
              nextSendAt: nextSendAt === null ? null : new Date(nextSendAt),
              bulkNextSendAt: bulkNextSendAt === null ? null : new Date(bulkNextSendAt),
            },
            timeZone: a.timeZone,
            window: { start: a.bulkWindowStart, end: a.bulkWindowEnd },
          },
        ];
      }),
    );
  }

  private partOf(message: QueuedMessage): OutboundPart {
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
      encoding: message.encoding,
      media: message.media,
    };
  }

  private async sendRound(now: number): Promise<void> {
    // A round takes parts whose slots come before its parts can leave: the next poll, or the time a round takes to
    // prepare when that is longer (tens of milliseconds on a busy database), so that preparing never makes a part late.
    const horizon = now + Math.max(this.pollMs, Math.min(1000, Math.ceil(2 * this.preparationMs)));
    const ready = [...this.held.values()]
      .filter((n) => !this.busy.has(n.number) && numberSlot(now, n.pace) <= horizon)
      .sort((a, b) => (a.pace.nextSendAt ?? 0) - (b.pace.nextSendAt ?? 0));
    if (ready.length === 0) return;
    const queues = await this.loadQueues(ready.map((n) => n.number));
    const accounts = await this.loadAccounts([...new Set(ready.map((n) => n.accountId))]);
    // Ad hoc before bulk across an account's numbers too: its slots go first to the numbers whose next message is
    // ad hoc (the sort keeps the order of their slots otherwise).
    const bulkNext = (n: HeldNumber) => (queues.get(n.number)?.[0]?.bulk ? 1 : 0);
    ready.sort((a, b) => bulkNext(a) - bulkNext(b));

    // Bulk candidates need their destination's zone; look them up before deciding (cached after the first).
    const zones = new Map<string, string | null>();
    for (const queue of queues.values()) {
      for (const m of queue)
        if (m.bulk && !m.inProgress && !zones.has(m.to)) zones.set(m.to, await destinationTimeZone(m.to));
    }

    const allocations: Allocation[] = [];
    const touchedAccounts = new Set<string>();
    for (const held of ready) {
      const account = accounts.get(held.accountId);
      const queue = queues.get(held.number);
      if (!account || !queue || queue.length === 0) continue;
      const candidate = nextInQueue(now, queue, (m) => {
        if (accountSlot(now, account.pace, true) > horizon) return false;
        return insideBulkWindow(now, zones.get(m.to) ?? account.timeZone, account.window);
      });
      if (!candidate) continue;
      const at = Math.max(numberSlot(now, held.pace), accountSlot(now, account.pace, candidate.bulk));
      if (at > horizon) continue;
      const bulkLane = candidate.bulk;
      const before = held.pace.nextSendAt;
      held.pace = afterSend(at, held.pace);
      account.pace = afterAccountSend(at, account.pace, bulkLane);
      touchedAccounts.add(account.id);
      allocations.push({
        message: candidate,
        part: this.partOf(candidate),
        at,
        holding: held.holding,
        slot: { before, after: held.pace.nextSendAt },
      });
    }
    if (allocations.length === 0) return;

    let reserved: Allocation[] = [];
    try {
      reserved = await this.reserve(allocations, accounts, touchedAccounts, now);
    } finally {
      const kept = new Set(reserved);
      for (const allocation of allocations) if (!kept.has(allocation)) this.giveBackSlot(allocation);
    }
    this.preparationMs = 0.8 * this.preparationMs + 0.2 * (this.clock() - now);
    if (reserved.length === 0) return;
    const numbers = reserved.map((a) => a.message.from);
    for (const number of numbers) this.busy.add(number);
    const flight: Promise<void> = this.deliver(reserved)
      .catch((error) => this.log.error({ err: error, parts: reserved.length }, "a delivery round failed"))
      .finally(() => {
        for (const number of numbers) this.busy.delete(number);
        this.inFlight.delete(flight);
      });
    this.inFlight.add(flight);
  }

  /** Hands a round's reserved parts to the carrier, each at its slot, and records the answers. */
  private async deliver(reserved: Allocation[]): Promise<void> {
    const results = await Promise.all(
      reserved.map(async (allocation) => {
        // The slot, or a full interval after the number's last part really left if that one was late.
        const from = allocation.part.from;
        const interval = 1000 / (this.held.get(from)?.pace.ratePerSecond ?? 1);
        // Until the slot (the shared wall clock, as stored for other workers) and a full interval after the
        // previous part (the steady clock).
        const wait = () =>
          Math.max(
            allocation.at - this.clock(),
            (this.lastLeft.get(from) ?? -Infinity) + interval + this.spacingGuardMs - this.intervalClock(),
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
        const fenceSpan = Math.min(interval, this.leaseMs - 3 * LEASE_MARGIN_MS);
        const fenced = () => {
          const held = this.held.get(from);
          if (
            !held ||
            held.holding !== allocation.holding ||
            this.clock() + fenceSpan + LEASE_MARGIN_MS > held.leaseUntil
          )
            throw new LeaseLost(from);
        };
        await waitForPace();
        let leftAt = this.clock();
        // The part "leaves" when the carrier has written it: that time is what pacing promises and records, read
        // after the write so that nothing (a busy machine, a paused process) can make the write later than what
        // the next part waits from. The carrier asks right before writing, after any wait of its own (a full SMPP
        // window), which may need a wait more if the number's previous part was itself held up.
        const departure = {
          leave: () => (wait() > 0 ? waitForPace().then(fenced) : fenced()),
          left: () => {
            leftAt = this.clock();
            this.lastLeft.set(from, this.intervalClock());
            // The wall clock reads whole milliseconds: the guard keeps the stored slot a full interval after the write.
            const next = leftAt + this.spacingGuardMs;
            const held = this.held.get(from);
            if (held && (held.pace.nextSendAt ?? 0) < next + interval) held.pace = afterSend(next, held.pace);
          },
        };
        let result: SubmitResult | null;
        try {
          result = await this.carrier.submit(allocation.part, departure);
        } catch (error) {
          if (error instanceof LeaseLost) {
            this.giveBackSlot(allocation);
            this.log.warn(
              { number: from, messageId: allocation.message.messageId, segment: allocation.part.segmentNumber },
              "part not sent: the number's lease runs out; the next holder of the number sends it",
            );
            result = null;
          } else {
            result = { ok: false, temporary: true, code: "CARRIER_ERROR", detail: (error as Error).message };
          }
        }
        if (result?.ok) this.submittedNotRecorded.add(result.carrierMessageId);
        return { allocation, result, at: leftAt };
      }),
    );
    try {
      await this.recordPersistently(results);
    } finally {
      // Receipts that overtook this round's record are taken up again now that their parts are written (or, if
      // writing failed, go back to the ordinary tries for unknown parts).
      for (const { result } of results) {
        if (!result?.ok) continue;
        this.submittedNotRecorded.delete(result.carrierMessageId);
        const waiting = this.receiptsAwaitingRecord.get(result.carrierMessageId);
        if (!waiting) continue;
        this.receiptsAwaitingRecord.delete(result.carrierMessageId);
        this.receipts.push(...waiting);
      }
      if (this.receipts.length > 0 && !this.recordingReceipts) void this.flushReceipts();
    }
  }

  /**
   * Writes the round's claims before anything is submitted: the accounts' next slots (compare-and-set, so workers
   * sharing an account never both take a slot), a check that this worker still holds each number's lease, and a
   * `sending` record per part. A few statements per round, whatever its size (per-row statements through Prisma
   * cost about a millisecond each here). A number's own next slot stays in this worker's memory while it holds
   * the number, and is written when it gives the number back: a worker that dies stops renewing its leases, so the
   * next holder starts a whole lease period (30 s) after its last send, which pacing allows.
   */
  private async reserve(
    allocations: Allocation[],
    accounts: Map<string, AccountState>,
    touchedAccounts: Set<string>,
    now: number,
  ): Promise<Allocation[]> {
    return writeTransaction(() => this.reserveSteps(allocations, accounts, touchedAccounts, now));
  }

  private *reserveSteps(
    allocations: Allocation[],
    accounts: Map<string, AccountState>,
    touchedAccounts: Set<string>,
    now: number,
  ): Steps<Allocation[]> {
    const lostAccounts = new Set<string>();
    const date = (at: number | Date | null) => (at === null ? null : new Date(at));
    for (const id of touchedAccounts) {
      const account = accounts.get(id)!;
      const values: unknown[] = [];
      const bind = binder(values);
      const updated = yield* execute(
        `UPDATE "Account" SET "nextSendAt" = ${bind("date", date(account.pace.nextSendAt))},
           "bulkNextSendAt" = ${bind("date", date(account.pace.bulkNextSendAt))}, "updatedAt" = ${bind("date", new Date(now))}
         WHERE "id" = ${bind("text", id)} AND ${sameAs(`"nextSendAt"`, bind("date", account.stored.nextSendAt))}
           AND ${sameAs(`"bulkNextSendAt"`, bind("date", account.stored.bulkNextSendAt))}`,
        values,
      );
      if (updated === 0) lostAccounts.add(id);
    }
    const numbers = [...new Set(allocations.map((a) => a.message.from))];
    const stillMine = new Set<string>();
    for (const chunk of chunks(numbers)) {
      const values: unknown[] = [];
      const bind = binder(values);
      const rows = yield* query<{ number: string }>(
        `SELECT "number" FROM "PhoneNumber"
         WHERE "leaseOwner" = ${bind("text", this.id)} AND "leaseUntil" > ${bind("date", new Date(now))}
           AND "number" IN (${placeholderList(values, chunk)})`,
        values,
      );
      for (const row of rows) stillMine.add(row.number);
    }
    for (const number of numbers) if (!stillMine.has(number)) this.held.delete(number);
    const kept = allocations.filter((a) => !lostAccounts.has(a.message.accountId) && stillMine.has(a.message.from));
    // A message taken for its first part is claimed only if it is still waiting: the lease holder is not the only
    // one to change queued messages (a STOP from the destination rejects them), so what the claim did not move to
    // `sending` is not submitted.
    const fresh = kept.filter((a) => a.message.partsSubmitted === 0).map((a) => a.message.messageId);
    const claimed = new Set(fresh.length > 0 ? yield* claimForSending(fresh, now) : []);
    const submittable = kept.filter((a) => a.message.partsSubmitted > 0 || claimed.has(a.message.messageId));
    yield* insertSdrsSteps(
      submittable.map(({ message, part }) =>
        sdr(message.messageId, message.accountId, "sending", now, { segmentNumber: part.segmentNumber }),
      ),
    );
    return submittable;
  }

  /**
   * A part that did not leave (not reserved, or fenced before its write) gives its number's slot back, so that the
   * number's next part does not wait an interval for nothing (100 s at 0.01/s). Only while the number is held in the
   * same holding and no slot was taken after this one: otherwise the pace as claimed (maybe another worker's) stands.
   */
  private giveBackSlot(allocation: Allocation): void {
    const held = this.held.get(allocation.message.from);
    if (!held || held.holding !== allocation.holding || held.pace.nextSendAt !== allocation.slot.after) return;
    held.pace = { ...held.pace, nextSendAt: allocation.slot.before };
  }

  private retryDelay(attempts: number): number {
    return this.retryDelaysMs[Math.min(attempts - 1, this.retryDelaysMs.length - 1)]!;
  }

  /**
   * Writes a round's answers, trying again while the database cannot be reached, for up to a lease period: answers
   * dropped would send their parts again (a second copy for the phone). The fencing in record() keeps a late write
   * from overriding a worker that has taken the numbers over meanwhile.
   */
  private async recordPersistently(
    results: { allocation: Allocation; result: SubmitResult | null; at: number }[],
  ): Promise<void> {
    const started = performance.now();
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.record(results);
      } catch (error) {
        if (this.stopped || performance.now() - started > this.leaseMs) throw error;
        this.log.warn({ err: error, attempt }, "could not record the round's answers; trying again");
        await new Promise((resolve) => setTimeout(resolve, Math.min(1000, 100 * 2 ** attempt)));
      }
    }
  }

  /**
   * The carrier's answers of one round, written in a handful of statements: messages are updated in groups. Only
   * for the numbers this worker still holds (fencing): the transaction first locks the rows of its numbers that
   * still name it as their lease owner; the answers for a number another worker has taken over since (this one was
   * paused, or cut off from the database, past its lease) are dropped, for that worker sends those parts again and
   * records its own answers. A number whose lease ran out but that nobody took keeps its answers: no one else can
   * have sent for it meanwhile. Parts that were not handed to the carrier (`result` null) are left as they were.
   */
  private async record(results: { allocation: Allocation; result: SubmitResult | null; at: number }[]): Promise<void> {
    const answered = results.filter(
      (r): r is { allocation: Allocation; result: SubmitResult; at: number } => r.result !== null,
    );
    if (answered.length === 0) return;
    countSubmits(await writeTransaction(() => this.recordSteps(answered)));
  }

  private *recordSteps(answered: { allocation: Allocation; result: SubmitResult; at: number }[]): Steps<SdrRow[]> {
    const numbers = [...new Set(answered.map((r) => r.allocation.message.from))];
    const values: unknown[] = [this.id];
    const list = placeholderList(values, numbers);
    // An UPDATE that changes nothing, for its row locks (PostgreSQL) or the write lock (SQLite): a claim by
    // another worker waits for this transaction, and then sees the round recorded.
    const held = yield* query<{ number: string }>(
      `UPDATE "PhoneNumber" SET "leaseOwner" = "leaseOwner"
         WHERE "leaseOwner" = ${placeholder(1, "text")} AND "number" IN (${list}) RETURNING "number"`,
      values,
    );
    const stillMine = new Set(held.map((h) => h.number));
    const lost = numbers.filter((n) => !stillMine.has(n));
    if (lost.length > 0) {
      for (const number of lost) this.held.delete(number);
      this.log.warn(
        { numbers: lost, parts: answered.filter((r) => !stillMine.has(r.allocation.message.from)).length },
        "answers not recorded: another worker took these numbers over; it sends their parts again",
      );
    }
    return yield* this.write(answered.filter((r) => stillMine.has(r.allocation.message.from)));
  }

  private *write(results: { allocation: Allocation; result: SubmitResult; at: number }[]): Steps<SdrRow[]> {
    if (results.length === 0) return [];
    const sdrs: SdrRow[] = [];
    const parts: unknown[][] = [];
    // Messages that get the same change are updated together, keyed by the change.
    const groups = new Map<string, { data: MessageChange; ids: string[] }>();
    const change = (data: MessageChange, id: string) => {
      const key = JSON.stringify(data);
      const group = groups.get(key) ?? { data, ids: [] };
      group.ids.push(id);
      groups.set(key, group);
    };
    const roundTime = Math.max(...results.map((r) => r.at));
    for (const { allocation, result, at } of results) {
      const { message, part } = allocation;
      const seg = part.segmentNumber;
      if (result.ok) {
        parts.push([uuidv4(), message.messageId, seg, result.carrierMessageId, "wait_dlr", new Date(at), null]);
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
            ...(last ? { status: "sent", expiresAt: new Date(roundTime + this.validityMs) } : {}),
          },
          message.messageId,
        );
      } else if (result.temporary && message.attempts + 1 < this.maxAttempts) {
        const attempts = message.attempts + 1;
        const retryAt = roundTime + this.retryDelay(attempts);
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
        const outcome = result.temporary ? "failed" : "rejected";
        sdrs.push(
          sdr(message.messageId, message.accountId, outcome, at, {
            segmentNumber: seg,
            statusDetails: `${result.code} ${result.detail}${result.temporary ? `; gave up after ${this.maxAttempts} attempts` : ""}`,
            referenceId: message.referenceId,
          }),
        );
        change({ status: outcome, nextAttemptAt: null }, message.messageId);
      }
    }
    const now = new Date();
    for (const { data, ids } of groups.values()) yield* updateMessages(data, ids, now);
    yield* insertRowsSteps("MessagePart", MESSAGE_PART_COLUMNS, parts);
    yield* insertSdrsSteps(sdrs);
    yield* enqueueDeliveryStatusEventSteps(sdrs);
    return sdrs;
  }

  /** Writes the held numbers' next slots (kept in memory while held) and gives them back, in one statement a chunk. */
  private async release(numbers: string[]): Promise<void> {
    if (numbers.length > 0) await writeTransaction(() => this.releaseSteps(numbers));
  }

  private *releaseSteps(numbers: string[]): Steps<void> {
    for (const chunk of chunks(numbers, 5_000)) {
      const values: unknown[] = [];
      const bind = binder(values);
      const cases = chunk
        .filter((n) => this.held.get(n)?.pace.nextSendAt)
        .map((n) => `WHEN ${bind("text", n)} THEN ${bind("date", new Date(this.held.get(n)!.pace.nextSendAt!))}`);
      const nextSendAt = cases.length > 0 ? `CASE "number" ${cases.join(" ")} ELSE "nextSendAt" END` : `"nextSendAt"`;
      const owner = bind("text", this.id);
      const list = placeholderList(values, chunk);
      yield* execute(
        `UPDATE "PhoneNumber" SET "leaseOwner" = NULL, "leaseUntil" = NULL, "nextSendAt" = ${nextSendAt}
         WHERE "leaseOwner" = ${owner} AND "number" IN (${list})`,
        values,
      );
    }
  }

  /**
   * Receipts are recorded in batches: those arriving while one batch is written form the next. The carrier's
   * acknowledgement (deliver_sm_resp) waits for the commit, so a receipt is never lost. A receipt may overtake the
   * commit of its own submit: one for a part this worker submitted waits for that commit; another unknown one
   * (a part another worker submitted, when the carrier hands receipts to any session) is tried again a few times.
   */
  private handleReceipt(receipt: DeliveryReceipt, attempt = 0): Promise<void> {
    return new Promise((resolve, reject) => {
      this.receipts.push({ receipt, attempt, resolve, reject });
      if (!this.recordingReceipts) void this.flushReceipts();
    });
  }

  private receipts: PendingReceipt[] = [];
  private recordingReceipts = false;
  /** Carrier ids of parts this worker submitted whose round is not yet recorded, and receipts waiting for them. */
  private submittedNotRecorded = new Set<string>();
  private receiptsAwaitingRecord = new Map<string, PendingReceipt[]>();

  private async flushReceipts(): Promise<void> {
    this.recordingReceipts = true;
    try {
      while (this.receipts.length > 0) {
        // One turn of the event loop first, so that receipts arriving together form one batch (on SQLite a whole
        // transaction can otherwise complete before the next receipt is even read off the socket).
        await new Promise((resolve) => setImmediate(resolve));
        const batch = this.receipts.splice(0, 2000);
        try {
          const outcome = await recordReceipts(batch.map((b) => b.receipt));
          const unknown = new Set(outcome.unknown);
          for (const item of batch) {
            if (!unknown.has(item.receipt)) {
              item.resolve();
            } else if (this.submittedNotRecorded.has(item.receipt.carrierMessageId)) {
              // Its part left in a round still being written: it is taken up when that write is done, not dropped.
              const id = item.receipt.carrierMessageId;
              this.receiptsAwaitingRecord.set(id, [...(this.receiptsAwaitingRecord.get(id) ?? []), item]);
            } else if (item.attempt >= 9) {
              this.log.warn({ carrierMessageId: item.receipt.carrierMessageId }, "receipt for an unknown message part");
              item.resolve();
            } else {
              setTimeout(
                () => this.handleReceipt(item.receipt, item.attempt + 1).then(item.resolve, item.reject),
                200 * (item.attempt + 1),
              );
            }
          }
        } catch (error) {
          for (const item of batch) item.reject(error);
        }
      }
    } finally {
      this.recordingReceipts = false;
    }
  }

  private async handleInbound(message: InboundMessage): Promise<void> {
    await receiveMessage(message);
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

/** Moves waiting messages to `sending`; returns the ids it moved. */
function* claimForSending(ids: string[], now: number): Steps<string[]> {
  const claimed: string[] = [];
  for (const chunk of chunks(ids)) {
    const values: unknown[] = [boundValue("date", new Date(now))];
    const list = placeholderList(values, chunk);
    const rows = yield* query<{ id: string }>(
      `UPDATE "Message" SET "status" = 'sending', "updatedAt" = ${placeholder(1, "date")}
       WHERE "status" IN ('queued', 'sending') AND "id" IN (${list}) RETURNING "id"`,
      values,
    );
    for (const row of rows) claimed.push(row.id);
  }
  return claimed;
}

/** Null-safe equality of a column and a parameter (SQLite's IS, PostgreSQL's IS NOT DISTINCT FROM). */
function sameAs(column: string, parameter: string): string {
  return dbProvider() === "postgresql" ? `${column} IS NOT DISTINCT FROM ${parameter}` : `${column} IS ${parameter}`;
}

/** A number this worker holds, as stored. */
interface HeldRow {
  number: string;
  accountId: string;
  ratePerSecond: number;
  nextSendAt: Date | string | null;
  leaseUntil: Date | string | null;
}

interface QueuedRow {
  id: string;
  accountId: string;
  fromNumber: string;
  toNumber: string;
  body: string;
  media: string;
  numSegments: number | bigint;
  encoding: string;
  bulk: boolean | number | bigint;
  status: string;
  partsSubmitted: number | bigint;
  attempts: number | bigint;
  nextAttemptAt: Date | string | null;
  createdAt: Date | string;
  referenceId: string | null;
}

/** The first four messages of each number's queue (sending first, then ad hoc before bulk, oldest first). */
function* queueSteps(numbers: string[]): Steps<QueuedRow[]> {
  const rows: QueuedRow[] = [];
  for (const chunk of chunks(numbers)) {
    const values: unknown[] = [];
    const list = placeholderList(values, chunk);
    rows.push(
      ...(yield* query<QueuedRow>(
        `SELECT m."id", m."accountId", m."fromNumber", m."toNumber", m."body", m."media", m."numSegments", m."encoding",
                m."bulk", m."status", m."partsSubmitted", m."attempts", m."nextAttemptAt", m."createdAt", m."referenceId"
         FROM (
           SELECT "id", ROW_NUMBER() OVER (
             PARTITION BY "fromNumber"
             ORDER BY CASE WHEN "status" = 'sending' THEN 0 ELSE 1 END, "bulk", "createdAt", "id"
           ) AS "rank"
           FROM "Message"
           WHERE "direction" = 'outbound' AND "status" IN ('queued', 'sending') AND "fromNumber" IN (${list})
         ) ranked JOIN "Message" m ON m."id" = ranked."id"
         WHERE ranked."rank" <= 4
         ORDER BY m."fromNumber", ranked."rank"`,
        values,
      )),
    );
  }
  return rows;
}

interface AccountRow {
  id: string;
  rateLimitPerSecond: number;
  bulkShare: number;
  nextSendAt: Date | string | null;
  bulkNextSendAt: Date | string | null;
  timeZone: string;
  bulkWindowStart: string;
  bulkWindowEnd: string;
}

function* accountSteps(ids: string[]): Steps<AccountRow[]> {
  const values: unknown[] = [];
  return yield* query<AccountRow>(
    `SELECT "id", "rateLimitPerSecond", "bulkShare", "nextSendAt", "bulkNextSendAt", "timeZone", "bulkWindowStart",
            "bulkWindowEnd"
     FROM "Account" WHERE "id" IN (${placeholderList(values, ids)})`,
    values,
  );
}

/** Milliseconds since the epoch of a stored time (SQLite gives its text, PostgreSQL a Date), or null. */
function time(value: Date | string | null): number | null {
  return value === null ? null : new Date(value).getTime();
}
