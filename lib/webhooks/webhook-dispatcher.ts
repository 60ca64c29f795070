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

/** An event leased to this dispatcher, waiting for a slot, with its lease's end (ms since the epoch). */
interface Leased {
  event: ClaimedEvent;
  leaseUntil: number;
}
/**
 * Events handed over waiting for a slot, with those posting: at most this many times the concurrency (a busy
 * dispatcher posts that many in tens of milliseconds), and fewer when attempts are slow (room()). Beyond it, events
 * wait in the outbox for a claim.
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
  /** Claimed events that found no slot free when the claim returned (handed ones took it meanwhile). */
  private claimed: Leased[] = [];
  /** Events handed over leased, oldest first, with their lease's end. */
  private handed: Leased[] = [];
  /** The outbox had due events at the last look: a quarter of the slots are kept for its claims. */
  private outboxDue = false;
  /** How long attempts take, averaged: how many handed events can wait before their lease runs short. */
  private attemptMs = 0;
  /** Leases being given back. */
  private readonly releasing = new Set<Promise<void>>();
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
    this.release([...this.claimed.splice(0), ...this.handed.splice(0)]);
    await Promise.allSettled([...this.releasing]);
    await Promise.allSettled([...this.inFlight]);
    await Promise.allSettled([...this.unrecorded]);
    this.log.info({ dispatcherId: this.id }, "webhook dispatcher stopped");
  }

  get owner(): string {
    return this.id;
  }

  room(): number {
    if (this.stopped) return 0;
    // As many as can be posted before their lease runs short, at the pace attempts have been taking.
    const wait = this.leaseMs - this.leaseNeededMs();
    const depth = Math.min(
      HANDED_DEPTH * this.concurrency,
      Math.floor((this.concurrency * wait) / Math.max(this.attemptMs, 1)),
    );
    return Math.max(0, depth - this.inFlight.size - this.claimed.length - this.handed.length);
  }

  /** What is left of a lease for an attempt to begin: room for one at the URL and one at the failover URL. */
  private leaseNeededMs(): number {
    return Math.min(2 * this.timeoutMs + 1000, this.leaseMs - 1000);
  }

  leaseUntil(now: number): number {
    return now + this.leaseMs;
  }

  take(events: ClaimedEvent[], leaseUntil: number): void {
    const leased = events.map((event) => ({ event, leaseUntil }));
    if (this.stopped) return this.release(leased);
    this.handed.push(...leased);
    this.postWaiting();
  }

  /**
   * Posts the events waiting while slots are free: claimed ones first, then those handed over, which leave a quarter
   * of the slots to the outbox's claims while it has due events (retries, an event that waited for an earlier one of
   * its message), so that those never wait behind the new events this process keeps writing. A handed event whose
   * lease has run short is given back rather than posted: another dispatcher could claim it while it is being posted.
   */
  private postWaiting(): void {
    if (this.stopped) return;
    // Every waiting event's lease looked at, whether or not a slot is free: one that has run short is given back
    // (one that has run out is another's to take, or this dispatcher's again under a new lease: left alone).
    const now = Date.now();
    const short: Leased[] = [];
    const keep = (waiting: Leased[]) =>
      waiting.filter((w) => {
        if (w.leaseUntil - now >= this.leaseNeededMs()) return true;
        if (w.leaseUntil > now) short.push(w);
        return false;
      });
    this.claimed = keep(this.claimed);
    this.handed = keep(this.handed);
    this.release(short);
    while (this.inFlight.size < this.concurrency && this.claimed.length > 0) this.launch(this.claimed.shift()!.event);
    const slots = this.outboxDue ? this.concurrency - Math.max(1, Math.floor(this.concurrency / 4)) : this.concurrency;
    while (this.inFlight.size < slots && this.handed.length > 0) this.launch(this.handed.shift()!.event);
  }

  /** Gives back leases of events not posted: due again at once, for any dispatcher. */
  private release(leases: Leased[]): void {
    if (leases.length === 0) return;
    const ids = leases.map(({ event, leaseUntil }) => ({ id: event.id, leaseUntil }));
    const released: Promise<void> = writeTransaction(() => releaseEventLeasesSteps(ids, this.id, new Date()))
      .then(() => undefined)
      .catch((error) =>
        this.log.warn({ err: error, events: ids.length }, "webhook leases not given back; they will expire"),
      )
      .finally(() => this.releasing.delete(released));
    this.releasing.add(released);
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
    this.postWaiting();
    const free = this.concurrency - this.inFlight.size;
    if (free <= 0) {
      // Every slot taken, by events handed over perhaps: whether the outbox has due events, which then get a share.
      if (!this.outboxDue) this.outboxDue = await anyDueEvent(new Date());
      return;
    }
    const now = Date.now();
    const events = await this.claim(free, now);
    // Posted at once where slots are still free (handed events may have taken some during the claim), else first.
    this.claimed.push(...events.map((event) => ({ event, leaseUntil: this.leaseUntil(now) })));
    // A full claim means more may be due: look again soon rather than after a poll.
    this.backlog = events.length === free;
    if (this.backlog) this.again = true;
    this.outboxDue = this.backlog;
    this.postWaiting();
  }

  private launch(event: ClaimedEvent): void {
    const started = performance.now();
    const attempt: Promise<void> = this.deliver(event)
      .catch((error) => this.log.error({ err: error, eventId: event.id }, "webhook attempt could not be recorded"))
      .finally(() => {
        const took = performance.now() - started;
        this.attemptMs = this.attemptMs === 0 ? took : 0.8 * this.attemptMs + 0.2 * took;
        this.inFlight.delete(attempt);
        this.postWaiting();
        this.wake();
      });
    this.inFlight.add(attempt);
  }

  /** Due events, oldest first, none behind a pending earlier event of its message, leased to this dispatcher. */
  private async claim(limit: number, now: number): Promise<ClaimedEvent[]> {
    // A read first, unless the last claim was full: most polls find nothing.
    this.outboxDue = this.backlog || (await anyDueEvent(new Date(now)));
    if (!this.outboxDue) return [];
    return leaseDueEvents({ owner: this.id, limit, now: new Date(now), until: new Date(this.leaseUntil(now)) });
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
