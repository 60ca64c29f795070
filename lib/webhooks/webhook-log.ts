import { z } from "zod";
import { db } from "../db/client";
import { ApiError } from "../api/api-error";

// The delivery log an admin reads (every attempt: time, URL, HTTP status, latency, error), the events themselves,
// and manual resends.

const isoDate = z
  .string()
  .refine((v) => !Number.isNaN(Date.parse(v)), "must be an ISO 8601 date-time")
  .transform((v) => new Date(v));

export const attemptQuery = z.object({
  eventId: z.string().max(100).optional(),
  messageId: z.string().max(100).optional(),
  // "failed" = attempts that were not accepted; "ok" = accepted ones.
  outcome: z.enum(["ok", "failed"]).optional(),
  since: isoDate.optional(),
  until: isoDate.optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
});
export type AttemptQuery = z.infer<typeof attemptQuery>;

export const eventQuery = z.object({
  status: z.enum(["pending", "delivered", "failed"]).optional(),
  messageId: z.string().max(100).optional(),
  since: isoDate.optional(),
  until: isoDate.optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
});
export type EventQuery = z.infer<typeof eventQuery>;

export const resendInput = z.union([
  z.object({ eventId: z.string().min(1).max(100) }).strict(),
  z.object({ since: isoDate, until: isoDate }).strict(),
]);
export type ResendInput = z.infer<typeof resendInput>;

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
  return rows.map((a) => ({
    id: a.id,
    eventId: a.eventId,
    at: a.at.toISOString(),
    url: a.url,
    httpStatus: a.httpStatus,
    latencyMs: a.latencyMs,
    error: a.error,
  }));
}

/** Events, newest first, with their payloads (what was or will be posted). */
export async function listWebhookEvents(accountId: string, query: EventQuery) {
  const rows = await db().webhookEvent.findMany({
    where: {
      accountId,
      ...(query.status ? { status: query.status } : {}),
      ...(query.messageId ? { messageId: query.messageId } : {}),
      createdAt: range(query.since, query.until),
    },
    orderBy: [{ createdAt: "desc" }, { sequence: "desc" }],
    take: query.limit,
  });
  return rows.map((e) => ({
    id: e.id,
    kind: e.kind,
    messageId: e.messageId,
    segmentNumber: e.segmentNumber,
    status: e.status,
    attempts: e.attempts,
    nextAttemptAt: e.status === "pending" ? e.nextAttemptAt.toISOString() : null,
    lastError: e.lastError,
    createdAt: e.createdAt.toISOString(),
    deliveredAt: e.deliveredAt?.toISOString() ?? null,
    payload: JSON.parse(e.payload) as unknown,
  }));
}

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
