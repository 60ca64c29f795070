import { db } from "../db/client";
import { ApiError } from "../api/api-error";
import { TEST_EVENT_PREFIX, type AttemptQuery, type EventQuery, type ResendInput } from "./webhook-schemas";

// The delivery log an admin reads (every attempt: time, URL, HTTP status, latency, error), the events themselves,
// and manual resends.

function range(since?: Date, until?: Date) {
  return since || until ? { ...(since ? { gte: since } : {}), ...(until ? { lt: until } : {}) } : undefined;
}

/** Attempts, newest first. */
export async function listWebhookAttempts(accountId: string, query: AttemptQuery) {
  const rows = await db().webhookAttempt.findMany({
    where: {
      accountId,
      ...(query.eventId ? { eventId: query.eventId } : {}),
      ...(query.outcome === "ok" ? { error: null } : query.outcome === "failed" ? { error: { not: null } } : {}),
      ...(query.messageId
        ? {
            eventId: {
              in: (
                await db().webhookEvent.findMany({
                  where: { accountId, messageId: query.messageId },
                  select: { id: true },
                })
              ).map((e) => e.id),
            },
          }
        : {}),
      at: range(query.since, query.until),
    },
    orderBy: [{ at: "desc" }, { id: "desc" }],
    take: query.limit,
  });
  return rows.map(toAttemptResult);
}

type AttemptRow = Awaited<ReturnType<ReturnType<typeof db>["webhookAttempt"]["findMany"]>>[number];

function toAttemptResult(a: AttemptRow) {
  return {
    id: a.id,
    eventId: a.eventId,
    at: a.at.toISOString(),
    url: a.url,
    httpStatus: a.httpStatus,
    latencyMs: a.latencyMs,
    error: a.error,
  };
}

// At most this many attempts per event in `attemptLog` (an event retried all day has ~16; resends add more).
const ATTEMPTS_PER_EVENT = 50;

function kindWhere(kind: EventQuery["kind"]) {
  if (kind === "test") return { id: { startsWith: TEST_EVENT_PREFIX } };
  if (kind) return { kind, NOT: { id: { startsWith: TEST_EVENT_PREFIX } } };
  return {};
}

/**
 * Events, newest first, a page at a time, with their payloads (what was or will be posted), the total that match,
 * and with `include: "attempts"` each event's attempts (newest first).
 */
export async function listWebhookEvents(accountId: string, query: EventQuery) {
  const where = {
    accountId,
    ...(query.status ? { status: query.status } : {}),
    ...kindWhere(query.kind),
    ...(query.messageId ? { messageId: query.messageId } : {}),
    createdAt: range(query.since, query.until),
  };
  const start = query.start ?? 0;
  const [rows, total] = await Promise.all([
    db().webhookEvent.findMany({
      where,
      orderBy: [{ createdAt: "desc" }, { sequence: "desc" }, { id: "desc" }],
      skip: start,
      take: query.limit,
    }),
    db().webhookEvent.count({ where }),
  ]);
  const attempts = new Map<string, ReturnType<typeof toAttemptResult>[]>();
  if (query.include === "attempts" && rows.length > 0) {
    const found = await db().webhookAttempt.findMany({
      where: { accountId, eventId: { in: rows.map((e) => e.id) } },
      orderBy: [{ at: "desc" }, { id: "desc" }],
    });
    for (const attempt of found) {
      const list = attempts.get(attempt.eventId) ?? [];
      if (list.length < ATTEMPTS_PER_EVENT) list.push(toAttemptResult(attempt));
      attempts.set(attempt.eventId, list);
    }
  }
  const events = rows.map((e) => ({
    id: e.id,
    kind: e.kind,
    test: e.id.startsWith(TEST_EVENT_PREFIX),
    messageId: e.messageId,
    segmentNumber: e.segmentNumber,
    status: e.status,
    attempts: e.attempts,
    nextAttemptAt: e.status === "pending" ? e.nextAttemptAt.toISOString() : null,
    lastError: e.lastError,
    createdAt: e.createdAt.toISOString(),
    deliveredAt: e.deliveredAt?.toISOString() ?? null,
    payload: JSON.parse(e.payload) as unknown,
    ...(query.include === "attempts" ? { attemptLog: attempts.get(e.id) ?? [] } : {}),
  }));
  return { events, total, start };
}

export type WebhookEventResult = Awaited<ReturnType<typeof listWebhookEvents>>["events"][number];
export type WebhookAttemptResult = ReturnType<typeof toAttemptResult>;

/**
 * Sends events again: one event by id (whatever its status: a receiver that lost it may ask again), or every failed
 * event created in a time range. Each gets a fresh retry schedule starting now.
 */
export async function resendWebhookEvents(accountId: string, input: ResendInput): Promise<{ resent: number }> {
  const now = new Date();
  const data = {
    status: "pending",
    attempts: 0,
    nextAttemptAt: now,
    retryFrom: now,
    leaseOwner: null,
    leaseUntil: null,
  };
  if ("eventId" in input) {
    const updated = await db().webhookEvent.updateMany({ where: { id: input.eventId, accountId }, data });
    if (updated.count === 0) throw new ApiError("NotFound", { detail: `no webhook event ${input.eventId}` });
    return { resent: 1 };
  }
  if (input.until <= input.since) {
    throw new ApiError("InvalidRequest", { detail: "until must be later than since", field: "until" });
  }
  const updated = await db().webhookEvent.updateMany({
    where: { accountId, status: "failed", createdAt: { gte: input.since, lt: input.until } },
    data,
  });
  return { resent: updated.count };
}
