import { hostname } from "node:os";
import { randomBytes } from "node:crypto";
import { logger } from "../log";
import { writeTransaction } from "../db/steps";
import { onEventsWritten, type EventTaker } from "./enqueue-events";
import { postClaimedEvent } from "./post-claimed-event";
import { WebhookOutcomeRecorder } from "./record-webhook-outcomes";
import type { Attempt } from "./webhook-outcome-steps";
import { anyDueEvent, leaseDueEvents, releaseEventLeasesSteps, type ClaimedEvent } from "./webhook-queries";
import { WebhookTargets } from "./webhook-targets";

export interface DispatcherOptions {
  pollMs?: number;
  concurrency?: number;
  timeoutMs?: number;
  leaseMs?: number;
  /** Waits after failed attempts, with ±15 % jitter; the last repeats. */
  retryDelaysMs?: number[];
  /** No attempt later than this after the event (or its resend). */
  retryWindowMs?: number;
  allowPrivate?: boolean;
  dispatcherId?: string;
}

const WAKE_MS = 5;
/**
 * Events waiting for a slot and posting: at most this many times the concurrency (a busy dispatcher posts that many in
 * tens of milliseconds). Beyond it, events wait in the outbox for a claim.
 */
const HANDED_DEPTH = 8;

/**
 * Delivers the outbox (WebhookEvent) to the accounts' URLs: claims due events with a lease (several processes may
 * run one: PostgreSQL skips rows another holds, SQLite serialises the claim), posts them with bounded
 * concurrency, logs every attempt, and retries on the schedule until the window closes. Events of one message go
 * in order: one is not claimed while an earlier event of its message is still pending. A process killed mid-send
 * leaves its lease to expire; the event is then claimed again (at least once; `webhook-id` lets receivers
 * deduplicate). Events this process writes may be handed over leased already, as they are written (EventTaker,
 * enqueue-events.ts): they wait here for a slot, without a claim.
 */
export class WebhookDispatcher implements EventTaker {
  readonly id: string;
  private readonly pollMs: number;
  private readonly concurrency: number;
  private readonly timeoutMs: number;
  private readonly leaseMs: number;
  private readonly allowPrivate: boolean;
  private readonly inFlight = new Set<Promise<void>>();
  /** Events leased to this dispatcher (handed over, or claimed) waiting for a slot, oldest first, with their lease's end. */
  private readonly handed: { event: ClaimedEvent; leaseUntil: number }[] = [];
  private readonly unrecorded = new Set<Promise<void>>();
  private readonly targets = new WebhookTargets();
  private readonly recorder: WebhookOutcomeRecorder;
  private timer: NodeJS.Timeout | null = null;
  private timerAt = 0;
  /** The last claim took all it could: more is due, so the next claim skips its probe. */
  private backlog = false;
  private ticking: Promise<void> | null = null;
  private again = false;
  private stopped = true;
  private unsubscribe: (() => void) | null = null;
  private readonly log = logger().child({ component: "webhooks" });

  constructor(options: DispatcherOptions = {}) {
    this.pollMs = options.pollMs ?? 100;
    this.concurrency = options.concurrency ?? 16;
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.leaseMs = Math.max(options.leaseMs ?? 30_000, this.timeoutMs + 1000);
    this.allowPrivate = options.allowPrivate ?? false;
    this.id = options.dispatcherId ?? `${hostname()}:${process.pid}:wh-${randomBytes(3).toString("hex")}`;
    this.recorder = new WebhookOutcomeRecorder(
      {
        owner: this.id,
        retryDelaysMs: options.retryDelaysMs ?? [5, 30, 120, 600, 1800, 3600, 7200].map((s) => s * 1000),
        retryWindowMs: options.retryWindowMs ?? 24 * 3600_000,
      },
      this.log,
    );
  }

  start(): void {
    this.stopped = false;
    this.unsubscribe = onEventsWritten(() => this.wake(), this);
    this.schedule(0);
    this.log.info({ dispatcherId: this.id }, "webhook dispatcher started");
  }

  /** Stops claiming, lets the attempts in flight finish (each within the timeout). */
  async stop(): Promise<void> {
    this.stopped = true;
    this.unsubscribe?.();
    if (this.timer) clearTimeout(this.timer);
    await this.ticking;
    await this.giveBackHanded();
    await Promise.allSettled([...this.inFlight]);
    await Promise.allSettled([...this.unrecorded]);
    this.log.info({ dispatcherId: this.id }, "webhook dispatcher stopped");
  }

  get owner(): string {
    return this.id;
  }

  room(): number {
    // Events claimed from the outbox go before those handed over (tick), so taking new ones starves no older one.
    if (this.stopped) return 0;
    return Math.max(0, HANDED_DEPTH * this.concurrency - this.inFlight.size - this.handed.length);
  }

  leaseUntil(now: number): number {
    return now + this.leaseMs;
  }

  take(events: ClaimedEvent[], leaseUntil: number): void {
    for (const event of events) this.handed.push({ event, leaseUntil });
    if (this.stopped) void this.giveBackHanded();
    else this.postHanded();
  }

  /**
   * Posts the events waiting while slots are free. One whose lease has less than an attempt's timeout left is left
   * to expire and be claimed again: another dispatcher could claim it while it is being posted.
   */
  private postHanded(): void {
    while (!this.stopped && this.inFlight.size < this.concurrency && this.handed.length > 0) {
      const { event, leaseUntil } = this.handed.shift()!;
      if (Date.now() > leaseUntil - this.timeoutMs) continue;
      this.launch(event);
    }
  }

  /** The leases of handed events not yet posted, given back (stopping): due again for any dispatcher. */
  private async giveBackHanded(): Promise<void> {
    const ids = this.handed.splice(0).map((h) => h.event.id);
    if (ids.length === 0) return;
    try {
      await writeTransaction(() => releaseEventLeasesSteps(ids, this.id, new Date()));
    } catch (error) {
      this.log.warn({ err: error, events: ids.length }, "webhook leases not given back; they will expire");
    }
  }

  /** Looks for due events now (this process wrote some, or an attempt finished). */
  wake(): void {
    if (this.stopped) return;
    if (this.ticking) this.again = true;
    // A few milliseconds' wait lets attempts that end together free their slots for one claim, rather than one
    // claim (two queries) per slot.
    else if (!this.timer || this.timerAt > Date.now() + WAKE_MS) this.schedule(WAKE_MS);
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timerAt = Date.now() + ms;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.ticking = this.tick()
        .catch((error) => this.log.error({ err: error }, "webhook dispatch round failed"))
        .finally(() => {
          this.ticking = null;
          const rerun = this.again;
          this.again = false;
          this.schedule(rerun ? WAKE_MS : this.pollMs);
        });
    }, ms);
  }

  private async tick(): Promise<void> {
    // Finished events past retention are deleted by the worker's retention pass (lib/retention/), not here: a
    // round of deliveries never waits for it.
    this.postHanded();
    // Events handed over do not take the claim's slots: the outbox's (retries, an event that waited for an earlier
    // one of its message) would wait behind them as long as this process writes new ones.
    const free = this.concurrency - this.inFlight.size;
    if (free <= 0) return;
    const now = Date.now();
    const events = await this.claim(free, now);
    // First in the queue of events waiting for a slot: some may have been handed over during the claim.
    this.handed.unshift(...events.map((event) => ({ event, leaseUntil: now + this.leaseMs })));
    this.postHanded();
    // A full claim means more may be due: look again soon rather than after a poll.
    this.backlog = events.length === free;
    if (this.backlog) this.again = true;
  }

  private launch(event: ClaimedEvent): void {
    const attempt: Promise<void> = this.deliver(event)
      .catch((error) => this.log.error({ err: error, eventId: event.id }, "webhook attempt could not be recorded"))
      .finally(() => {
        this.inFlight.delete(attempt);
        this.postHanded();
        this.wake();
      });
    this.inFlight.add(attempt);
  }

  /** Due events, oldest first, none behind a pending earlier event of its message, leased to this dispatcher. */
  private async claim(limit: number, now: number): Promise<ClaimedEvent[]> {
    // A read first, unless the last claim was full: most polls find nothing.
    if (!this.backlog && !(await anyDueEvent(new Date(now)))) return [];
    return leaseDueEvents({ owner: this.id, limit, now: new Date(now), until: new Date(now + this.leaseMs) });
  }

  private async deliver(event: ClaimedEvent): Promise<void> {
    const target = await this.targets.of(event.accountId);
    const settings = { timeoutMs: this.timeoutMs, allowPrivate: this.allowPrivate };
    let at = new Date();
    let url = target?.url ?? "";
    let response = await postClaimedEvent(event, target, at, settings);
    // Not accepted at the URL, with a failover URL: tried there at once. Both attempts are logged, each against its
    // URL; the failover's answer decides what follows (delivered, or retried later at the URL first again).
    const earlier: Attempt[] = [];
    if (response.error !== null && target?.failoverUrl && !target.unsigned) {
      earlier.push({ url, at, response });
      url = target.failoverUrl;
      at = new Date();
      response = await postClaimedEvent(event, target, at, settings, url);
    }
    // The slot is free once the POST is over; the outcome is written with others in the next batch (the event
    // stays leased to this dispatcher until then, so nobody claims it twice).
    const recorded: Promise<void> = this.recorder
      .record({ event, url, at, response, earlier })
      .catch((error) => this.log.error({ err: error, eventId: event.id }, "webhook attempt could not be recorded"))
      .finally(() => this.unrecorded.delete(recorded));
    this.unrecorded.add(recorded);
  }
}
