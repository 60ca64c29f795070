import { hostname } from "node:os";
import { randomBytes } from "node:crypto";
import { db, dbProvider } from "../db/client";
import { logger } from "../log";
import {
  binder,
  boundValue,
  insertRowsSteps,
  placeholder,
  placeholderList,
  type ColumnKind,
  type SdrRow,
} from "../db/insert-rows";
import { execute, query, writeTransaction, type Steps } from "../db/steps";
import { recordTransitions } from "../messaging/record-transitions";
import { onEventsWritten } from "./enqueue-events";
import { postWebhook, type WebhookResponse } from "./post-webhook";
import { signingSecrets } from "./manage-webhook";
import { deliveryHeaders } from "./delivery-headers";
import { metrics, type WebhookOutcome } from "../metrics/define-metrics";

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

interface ClaimedEvent {
  id: string;
  accountId: string;
  messageId: string;
  kind: string;
  segmentNumber: number | null;
  payload: string;
  attempts: number;
  retryFrom: Date;
}

interface Target {
  url: string;
  headerName: string | null;
  headerValue: string | null;
  secrets: string[];
}

/** A delivery attempt's columns (as the dispatcher logs one, and the seeded settled messages). */
export const WEBHOOK_ATTEMPT_COLUMNS: [string, ColumnKind][] = [
  ["eventId", "text"],
  ["accountId", "text"],
  ["at", "date"],
  ["url", "text"],
  ["httpStatus", "int"],
  ["latencyMs", "int"],
  ["error", "text"],
];

const TARGET_CACHE_MS = 2000;
const WAKE_MS = 5;

// Dates in raw SQL, in the form each database stores (SQLite compares them as text).
const dateParam = (date: Date) => boundValue("date", date) as string;

/**
 * Delivers the outbox (WebhookEvent) to the accounts' URLs: claims due events with a lease (several processes may
 * run one: PostgreSQL skips rows another holds, SQLite serialises the claim), posts them with bounded
 * concurrency, logs every attempt, and retries on the schedule until the window closes. Events of one message go
 * in order: one is not claimed while an earlier event of its message is still pending. A process killed mid-send
 * leaves its lease to expire; the event is then claimed again (at least once; `webhook-id` lets receivers
 * deduplicate).
 */
export class WebhookDispatcher {
  readonly id: string;
  private readonly pollMs: number;
  private readonly concurrency: number;
  private readonly timeoutMs: number;
  private readonly leaseMs: number;
  private readonly retryDelaysMs: number[];
  private readonly retryWindowMs: number;
  private readonly allowPrivate: boolean;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly unrecorded = new Set<Promise<void>>();
  private readonly targets = new Map<string, { at: number; target: Target | null }>();
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
    this.retryDelaysMs = options.retryDelaysMs ?? [5, 30, 120, 600, 1800, 3600, 7200].map((s) => s * 1000);
    this.retryWindowMs = options.retryWindowMs ?? 24 * 3600_000;
    this.allowPrivate = options.allowPrivate ?? false;
    this.id = options.dispatcherId ?? `${hostname()}:${process.pid}:wh-${randomBytes(3).toString("hex")}`;
  }

  start(): void {
    this.stopped = false;
    this.unsubscribe = onEventsWritten(() => this.wake());
    this.schedule(0);
    this.log.info({ dispatcherId: this.id }, "webhook dispatcher started");
  }

  /** Stops claiming, lets the attempts in flight finish (each within the timeout). */
  async stop(): Promise<void> {
    this.stopped = true;
    this.unsubscribe?.();
    if (this.timer) clearTimeout(this.timer);
    await this.ticking;
    await Promise.allSettled([...this.inFlight]);
    await Promise.allSettled([...this.unrecorded]);
    this.log.info({ dispatcherId: this.id }, "webhook dispatcher stopped");
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
    const free = this.concurrency - this.inFlight.size;
    if (free <= 0) return;
    const events = await this.claim(free, Date.now());
    for (const event of events) {
      const attempt: Promise<void> = this.deliver(event)
        .catch((error) => this.log.error({ err: error, eventId: event.id }, "webhook attempt could not be recorded"))
        .finally(() => {
          this.inFlight.delete(attempt);
          this.wake();
        });
      this.inFlight.add(attempt);
    }
    // A full claim means more may be due: look again soon rather than after a poll.
    this.backlog = events.length === free;
    if (this.backlog) this.again = true;
  }

  /** Due events, oldest first, none behind a pending earlier event of its message, leased to this dispatcher. */
  private async claim(limit: number, now: number): Promise<ClaimedEvent[]> {
    const client = db();
    const nowParam = dateParam(new Date(now));
    const due = `e."status" = 'pending' AND e."nextAttemptAt" <= $NOW AND (e."leaseUntil" IS NULL OR e."leaseUntil" < $NOW)
      AND NOT EXISTS (SELECT 1 FROM "WebhookEvent" p WHERE p."messageId" = e."messageId" AND p."status" = 'pending'
        AND (p."createdAt" < e."createdAt" OR (p."createdAt" = e."createdAt" AND (p."sequence" < e."sequence"
          OR (p."sequence" = e."sequence" AND p."id" < e."id")))))`;
    const postgres = dbProvider() === "postgresql";
    const cast = postgres ? "::timestamp(3)" : "";
    // A read first: most polls find nothing, and on SQLite an UPDATE would take the write lock even then.
    const probe = this.backlog
      ? [{ id: "" }]
      : await client.$queryRawUnsafe<{ id: string }[]>(
          `SELECT e."id" FROM "WebhookEvent" e WHERE ${due.replaceAll("$NOW", postgres ? "$1::timestamp(3)" : "?")} LIMIT 1`,
          ...(postgres ? [nowParam] : [nowParam, nowParam]),
        );
    if (probe.length === 0) return [];
    const until = dateParam(new Date(now + this.leaseMs));
    const returning = `RETURNING "id", "accountId", "messageId", "kind", "segmentNumber", "payload", "attempts", "retryFrom"`;
    let rows: (Omit<ClaimedEvent, "retryFrom"> & { retryFrom: Date | string })[];
    if (postgres) {
      rows = await client.$queryRawUnsafe(
        `UPDATE "WebhookEvent" SET "leaseOwner" = $1, "leaseUntil" = $2${cast} WHERE "id" IN (
          SELECT e."id" FROM "WebhookEvent" e WHERE ${due.replaceAll("$NOW", `$3${cast}`)}
          ORDER BY e."nextAttemptAt" LIMIT ${limit} FOR UPDATE SKIP LOCKED) ${returning}`,
        this.id,
        until,
        nowParam,
      );
    } else {
      rows = await client.$queryRawUnsafe(
        `UPDATE "WebhookEvent" SET "leaseOwner" = ?, "leaseUntil" = ? WHERE "id" IN (
          SELECT e."id" FROM "WebhookEvent" e WHERE ${due.replaceAll("$NOW", "?")}
          ORDER BY e."nextAttemptAt" LIMIT ${limit}) ${returning}`,
        this.id,
        until,
        nowParam,
        nowParam,
      );
    }
    return rows.map((r) => ({
      ...r,
      segmentNumber: r.segmentNumber === null ? null : Number(r.segmentNumber),
      attempts: Number(r.attempts),
      retryFrom: new Date(r.retryFrom),
    }));
  }

  private async target(accountId: string): Promise<Target | null> {
    const cached = this.targets.get(accountId);
    if (cached && Date.now() - cached.at < TARGET_CACHE_MS) return cached.target;
    const endpoint = await db().webhookEndpoint.findUnique({ where: { accountId } });
    const target = endpoint
      ? {
          url: endpoint.url,
          headerName: endpoint.headerName,
          headerValue: endpoint.headerValue,
          secrets: (await signingSecrets(accountId)).map((s) => s.secret),
        }
      : null;
    this.targets.set(accountId, { at: Date.now(), target });
    return target;
  }

  private async deliver(event: ClaimedEvent): Promise<void> {
    const target = await this.target(event.accountId);
    const at = new Date();
    let response: WebhookResponse;
    if (!target) {
      response = {
        httpStatus: null,
        latencyMs: 0,
        error: "the account has no webhook URL configured",
        retryAfterAt: null,
        refused: false,
        failure: "network",
        body: "",
      };
    } else {
      response = await postWebhook({
        url: target.url,
        body: event.payload,
        timeoutMs: this.timeoutMs,
        allowPrivate: this.allowPrivate,
        headers: deliveryHeaders({
          eventId: event.id,
          kind: event.kind,
          payload: event.payload,
          secrets: target.secrets,
          headerName: target.headerName,
          headerValue: target.headerValue,
          at,
        }),
      });
    }
    // The slot is free once the POST is over; the outcome is written with others in the next batch (the event
    // stays leased to this dispatcher until then, so nobody claims it twice).
    const recorded: Promise<void> = this.record(event, target?.url ?? "", at, response)
      .catch((error) => this.log.error({ err: error, eventId: event.id }, "webhook attempt could not be recorded"))
      .finally(() => this.unrecorded.delete(recorded));
    this.unrecorded.add(recorded);
  }

  private nextDelay(attempts: number): number {
    const base = this.retryDelaysMs[Math.min(attempts - 1, this.retryDelaysMs.length - 1)]!;
    return base * (0.85 + Math.random() * 0.3);
  }

  /**
   * Attempts are written in batches: those that finish while one batch commits form the next, so a busy
   * dispatcher writes a few statements per batch rather than per event (on SQLite every transaction waits for the
   * one writer). An attempt's slot is freed only once its outcome is committed.
   */
  private record(event: ClaimedEvent, url: string, at: Date, response: WebhookResponse): Promise<void> {
    return new Promise((resolve, reject) => {
      this.outcomes.push({ event, url, at, response, resolve, reject });
      if (!this.recording) void this.flushOutcomes();
    });
  }

  private outcomes: {
    event: ClaimedEvent;
    url: string;
    at: Date;
    response: WebhookResponse;
    resolve: () => void;
    reject: (error: unknown) => void;
  }[] = [];
  private recording = false;

  private async flushOutcomes(): Promise<void> {
    this.recording = true;
    try {
      while (this.outcomes.length > 0) {
        await new Promise((resolve) => setImmediate(resolve));
        const batch = this.outcomes.splice(0, 500);
        try {
          await this.writeOutcomes(batch);
          const attempts = metrics().webhookAttempts;
          for (const item of batch) attempts.inc({ outcome: outcomeOf(item.response) });
          for (const item of batch) item.resolve();
        } catch (error) {
          for (const item of batch) item.reject(error);
        }
        for (const { event, url, response } of batch) {
          if (response.error) {
            this.log.info(
              { eventId: event.id, url, attempts: event.attempts + 1, error: response.error },
              "webhook attempt not accepted",
            );
          }
        }
      }
    } finally {
      this.recording = false;
    }
  }

  private async writeOutcomes(
    batch: { event: ClaimedEvent; url: string; at: Date; response: WebhookResponse }[],
  ): Promise<void> {
    await writeTransaction(() => this.outcomeSteps(batch, new Date()));
  }

  private *outcomeSteps(
    batch: { event: ClaimedEvent; url: string; at: Date; response: WebhookResponse }[],
    now: Date,
  ): Steps<void> {
    yield* insertRowsSteps(
      "WebhookAttempt",
      WEBHOOK_ATTEMPT_COLUMNS,
      batch.map(({ event, url, at, response }) => [
        event.id,
        event.accountId,
        at,
        url,
        response.httpStatus,
        response.latencyMs,
        response.error,
      ]),
    );
    const sdrs: SdrRow[] = [];
    const accepted = batch.filter((b) => b.response.error === null);
    if (accepted.length > 0) {
      // Only events still pending become delivered (a resend or another dispatcher may have been first); the
      // status_sent records are for those.
      const values: unknown[] = [boundValue("date", now)];
      const list = placeholderList(
        values,
        accepted.map((b) => b.event.id),
      );
      const done = yield* query<{ id: string }>(
        `UPDATE "WebhookEvent" SET "status" = 'delivered', "attempts" = "attempts" + 1,
           "deliveredAt" = ${placeholder(1, "date")}, "leaseOwner" = NULL, "leaseUntil" = NULL, "lastError" = NULL
         WHERE "status" = 'pending' AND "id" IN (${list}) RETURNING "id"`,
        values,
      );
      const delivered = new Set(done.map((d) => d.id));
      for (const { event, at, response } of accepted) {
        if (!delivered.has(event.id) || event.kind !== "message-status") continue;
        sdrs.push({
          messageId: event.messageId,
          accountId: event.accountId,
          status: "status_sent",
          statusDetails: `HTTP ${response.httpStatus} from the webhook`,
          segmentNumber: event.segmentNumber,
          createdAt: new Date(at.getTime() + response.latencyMs),
        });
      }
    }
    for (const { event, at, response } of batch) {
      if (response.error === null) continue;
      const finishedAt = at.getTime() + response.latencyMs;
      const attempts = event.attempts + 1;
      let next = finishedAt + this.nextDelay(attempts);
      if (response.retryAfterAt !== null) next = Math.max(next, response.retryAfterAt);
      const exhausted = next > event.retryFrom.getTime() + this.retryWindowMs;
      // Failed for good, or tried again at `next`; either way no longer leased, if this dispatcher still held it.
      const values: unknown[] = [];
      const bind = binder(values);
      const updated = yield* execute(
        `UPDATE "WebhookEvent" SET "status" = ${bind("text", exhausted ? "failed" : "pending")},
           "attempts" = ${bind("int", attempts)}, "leaseOwner" = NULL, "leaseUntil" = NULL,
           "lastError" = ${bind("text", response.error)}
           ${exhausted ? "" : `, "nextAttemptAt" = ${bind("date", new Date(next))}`}
         WHERE "id" = ${bind("text", event.id)} AND "status" = 'pending' AND "leaseOwner" = ${bind("text", this.id)}`,
        values,
      );
      if (updated > 0 && exhausted && event.kind === "message-status") {
        sdrs.push({
          messageId: event.messageId,
          accountId: event.accountId,
          status: "status_failed",
          statusDetails: `webhook not accepted after ${attempts} attempts: ${response.error}`.slice(0, 500),
          segmentNumber: event.segmentNumber,
          createdAt: new Date(finishedAt),
        });
      }
    }
    yield* recordTransitions({ sdrs, at: new Date() });
  }
}

/** An attempt's outcome in the metrics' words: accepted, or why not. */
function outcomeOf(response: WebhookResponse): WebhookOutcome {
  if (response.error === null) return "accepted";
  if (response.failure === "status") return "http_error";
  if (response.failure === "guard") return "refused";
  return response.failure === "timeout" ? "timeout" : "network";
}
