import { db } from "../db/client";

// How an account's webhook is doing, in the few figures a person looks at first (the webhook page's summary and
// the dashboard): the share of attempts its receiver accepted over the last 24 hours, the last refusal, and how
// many events wait to be delivered.

const WINDOW_MS = 24 * 3600_000;

export interface WebhookHealth {
  /** A URL is saved (without one, no events are written). */
  configured: boolean;
  /** The window the rate covers: the last 24 hours. */
  since: string;
  attempts: number;
  accepted: number;
  /** accepted / attempts, from 0 to 1; null when there was no attempt in the window. */
  successRate: number | null;
  /** The most recent attempt that was not accepted, whenever it was. */
  lastError: { at: string; eventId: string; httpStatus: number | null; error: string } | null;
  /** The most recent accepted attempt. */
  lastDeliveredAt: string | null;
  /** Events waiting for delivery (a first attempt or a retry), and when the oldest of them was written. */
  backlog: number;
  oldestPendingAt: string | null;
  /** Events that ran out of retries and are still kept (a resend sends them again). */
  failedEvents: number;
}

export async function webhookHealth(accountId: string, now = new Date()): Promise<WebhookHealth> {
  const client = db();
  const since = new Date(now.getTime() - WINDOW_MS);
  const recent = { accountId, at: { gte: since } };
  const [endpoint, attempts, accepted, lastError, lastDelivered, backlog, oldestPending, failedEvents] =
    await Promise.all([
      client.webhookEndpoint.findUnique({ where: { accountId }, select: { accountId: true } }),
      client.webhookAttempt.count({ where: recent }),
      client.webhookAttempt.count({ where: { ...recent, error: null } }),
      client.webhookAttempt.findFirst({
        where: { accountId, error: { not: null } },
        orderBy: [{ at: "desc" }, { id: "desc" }],
      }),
      client.webhookAttempt.findFirst({
        where: { accountId, error: null },
        orderBy: [{ at: "desc" }, { id: "desc" }],
        select: { at: true },
      }),
      client.webhookEvent.count({ where: { accountId, status: "pending" } }),
      client.webhookEvent.findFirst({
        where: { accountId, status: "pending" },
        orderBy: { createdAt: "asc" },
        select: { createdAt: true },
      }),
      client.webhookEvent.count({ where: { accountId, status: "failed" } }),
    ]);
  return {
    configured: endpoint !== null,
    since: since.toISOString(),
    attempts,
    accepted,
    successRate: attempts === 0 ? null : accepted / attempts,
    lastError: lastError
      ? {
          at: lastError.at.toISOString(),
          eventId: lastError.eventId,
          httpStatus: lastError.httpStatus,
          error: lastError.error ?? "",
        }
      : null,
    lastDeliveredAt: lastDelivered?.at.toISOString() ?? null,
    backlog,
    oldestPendingAt: oldestPending?.createdAt.toISOString() ?? null,
    failedEvents,
  };
}
