import { hostname } from "node:os";
import { performance } from "node:perf_hooks";
import { randomBytes } from "node:crypto";
import { logger } from "../log";
import type { Carrier, InboundMessage } from "../carriers/carrier";
import { chunks } from "../db/insert-rows";
import { writeTransaction } from "../db/steps";
import { receiveMessage } from "../messaging/receive-message";
import { metrics } from "../metrics/define-metrics";
import { ReceiptBatches } from "./batch-receipts";
import { expireLapsedMessages, promoteDueSchedules } from "./due-messages";
import { expireOverdueParts } from "./expire-messages";
import { NumberLeases } from "./lease-numbers";
import { departRound } from "./pace-departures";
import { planRound, readyNumbers, roundHorizon, type AccountState, type Allocation } from "./plan-round";
import { OutcomeRecorder } from "./record-outcomes";
import { loadAccounts, loadQueues, loadZones } from "./round-queries";
import { claimRoundSteps, markSendingSteps } from "./reserve-round";
import { startHeartbeat, type WorkerHeartbeat } from "./worker-heartbeat";

// The delivery worker, wired from its parts: it claims numbers (lease-numbers.ts), plans each round from what pacing
// allows (plan-round.ts, pure) on what the round reads (round-queries.ts), reserves it (reserve-round.ts), hands the
// parts to the carrier at their slots (pace-departures.ts), records the answers (record-outcomes.ts), records
// receipts in batches (batch-receipts.ts) and writes its heartbeat (worker-heartbeat.ts). The carrier interface is
// its one seam to protocols (lib/carriers/carrier.ts).

/** How often a worker looks for scheduled sends that are due and waiting messages whose validity ran out. */
const DUE_LOOK_MS = 250;
/**
 * The most parts one transaction of a round's reservation marks `sending`: on SQLite a round of 2,000 in one held
 * the write lock for 20–25 ms, which the send path waited for.
 */
const RESERVE_CHUNK = 400;

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

export class DeliveryWorker {
  readonly id: string;
  private readonly carrier: Carrier;
  private readonly clock: () => number;
  private readonly pollMs: number;
  private readonly leaseMs: number;
  private readonly validityMs: number;
  private readonly intervalClock: () => number;
  private readonly spacingGuardMs: number;
  private readonly leases: NumberLeases;
  private readonly outcomes: OutcomeRecorder;
  private readonly receipts: ReceiptBatches;
  /** A running average of how long a round takes from its start until its parts may leave (loading, reserving). */
  private preparationMs = 0;
  private lastClaim = 0;
  private lastSweep = 0;
  private lastDueLook = 0;
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
    this.intervalClock = options.intervalClock ?? options.clock ?? (() => performance.now());
    this.spacingGuardMs = options.spacingGuardMs ?? (options.clock ? 0 : 1);
    this.id = options.workerId ?? `${hostname()}:${process.pid}:${randomBytes(3).toString("hex")}`;
    this.leases = new NumberLeases({
      workerId: this.id,
      leaseMs: this.leaseMs,
      maxNumbers: options.maxNumbers ?? 10_000,
    });
    this.outcomes = new OutcomeRecorder({
      workerId: this.id,
      leases: this.leases,
      leaseMs: this.leaseMs,
      validityMs: this.validityMs,
      maxAttempts: options.maxAttempts ?? 8,
      retryDelaysMs: options.retryDelaysMs ?? [5_000, 30_000, 120_000, 600_000, 1_800_000],
      stopped: () => this.stopped,
      log: this.log,
    });
    this.receipts = new ReceiptBatches(this.log);
  }

  async start(): Promise<void> {
    this.stopped = false;
    await this.carrier.start({
      onReceipt: (receipt) => this.receipts.handleReceipt(receipt),
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
    await this.leases
      .release([...this.leases.held.keys()])
      .catch((error) => this.log.warn({ err: error }, "could not release numbers"));
    this.leases.clear();
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
    // Scheduled sends that are due join the queue (their numbers are claimed in this very step), and waiting
    // messages whose validity ran out expire: looked at four times a second.
    if (now - this.lastDueLook >= DUE_LOOK_MS) {
      this.lastDueLook = now;
      if ((await promoteDueSchedules(now)) > 0) this.lastClaim = 0;
      await expireLapsedMessages(now);
    }
    if (now - this.lastClaim >= Math.min(1000, this.leaseMs / 3) || this.leases.held.size === 0) {
      await this.claimNumbers(now);
      this.lastClaim = now;
    }
    if (this.leases.held.size > 0) await this.sendRound(now);
    // Receipts overdue: looked for every 10 s, or more often when the validity itself is short.
    if (now - this.lastSweep >= Math.min(10_000, this.validityMs / 4)) {
      this.lastSweep = now;
      await expireOverdueParts(now);
    }
  }

  // The steps of a round below are methods called through `this`, so that bench/delivery.ts can time each one.

  private claimNumbers(now: number): Promise<void> {
    return this.leases.claim(now);
  }

  private async sendRound(now: number): Promise<void> {
    const horizon = roundHorizon(now, this.pollMs, this.preparationMs);
    const ready = readyNumbers(now, horizon, this.leases.held.values(), this.busy);
    if (ready.length === 0) return;
    const queues = await this.loadQueues(
      ready.map((n) => n.number),
      now,
    );
    const accounts = await this.loadAccounts([...new Set(ready.map((n) => n.accountId))]);
    const zones = await loadZones(queues);
    const plan = planRound({ now, horizon, ready, queues, accounts, zones });
    // The slots the round takes are the numbers' and accounts' paces from now on (given back below if unused).
    for (const held of ready) held.pace = plan.numberPaces.get(held.number) ?? held.pace;
    for (const [id, pace] of plan.accountPaces) accounts.get(id)!.pace = pace;
    const allocations = plan.allocations;
    if (allocations.length === 0) return;

    let reserved: Allocation[] = [];
    try {
      reserved = await this.reserve(allocations, accounts, new Set(plan.accountPaces.keys()), now);
    } finally {
      const kept = new Set(reserved);
      for (const allocation of allocations) if (!kept.has(allocation)) this.leases.giveBackSlot(allocation);
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

  private loadQueues(numbers: string[], now: number): ReturnType<typeof loadQueues> {
    return loadQueues(numbers, now);
  }

  private loadAccounts(ids: string[]): ReturnType<typeof loadAccounts> {
    return loadAccounts(ids);
  }

  /**
   * The round's claims and its first RESERVE_CHUNK parts in one transaction, then the other parts' `sending` records
   * a chunk at a time. A chunk that cannot be written ends the reservation there: the parts reserved so far leave,
   * the others give their slots back (sendRound) and wait for a later round.
   */
  private async reserve(
    allocations: Allocation[],
    accounts: Map<string, AccountState>,
    touchedAccounts: Set<string>,
    now: number,
  ): Promise<Allocation[]> {
    let kept: Allocation[] = [];
    const { id } = this;
    const drop = (lost: string[]) => this.leases.drop(lost);
    const reserved = await writeTransaction(function* () {
      kept = yield* claimRoundSteps(id, allocations, accounts, touchedAccounts, now, drop);
      return yield* markSendingSteps(kept.slice(0, RESERVE_CHUNK), now);
    });
    for (const chunk of chunks(kept.slice(RESERVE_CHUNK), RESERVE_CHUNK)) {
      try {
        reserved.push(...(await writeTransaction(() => markSendingSteps(chunk, now))));
      } catch (error) {
        this.log.warn({ err: error, parts: allocations.length - reserved.length }, "part of a round not reserved");
        break;
      }
    }
    return reserved;
  }

  /** Hands a round's reserved parts to the carrier, each at its slot, and records the answers as they come. */
  private async deliver(reserved: Allocation[]): Promise<void> {
    const record = this.outcomes.recordAsAnswered(reserved, (results) => this.receipts.roundRecorded(results));
    try {
      await departRound(reserved, {
        carrier: this.carrier,
        leases: this.leases,
        clock: this.clock,
        intervalClock: this.intervalClock,
        spacingGuardMs: this.spacingGuardMs,
        leaseMs: this.leaseMs,
        log: this.log,
        submitted: (carrierMessageId) => this.receipts.submitted(carrierMessageId),
        answered: (result) => record.answered(result),
      });
    } finally {
      await record.finish();
    }
  }

  private async handleInbound(message: InboundMessage): Promise<void> {
    await receiveMessage(message);
  }
}
