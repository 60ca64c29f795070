import { db } from "../db/client";

const DAY_MS = 24 * 3600_000;

export interface WebhookHealth {
  /** The URL events go to, or null when the account has no webhook. */
  url: string | null;
  /** Attempts of the last 24 h: how many, how many the receiver accepted (2xx in time), and the share (null: none). */
  last24h: { attempts: number; succeeded: number; successRate: number | null };
  /** The most recent attempt that was not accepted, whenever it was. */
  lastError: { at: string; error: string; httpStatus: number | null } | null;
  /** Events waiting for a (next) attempt, and when the oldest of them was created. */
  backlog: { pending: number; oldestAt: string | null };
}

/** How the account's webhook deliveries are doing: what the dashboard shows (details on the Webhook page). */
export async function webhookHealth(accountId: string, now = new Date()): Promise<WebhookHealth> {
  const client = db();
  const since = new Date(now.getTime() - DAY_MS);
  const [endpoint, attempts, failed, lastError, pending, oldest] = await Promise.all([
    client.webhookEndpoint.findUnique({ where: { accountId }, select: { url: true } }),
    client.webhookAttempt.count({ where: { accountId, at: { gte: since } } }),
    client.webhookAttempt.count({ where: { accountId, at: { gte: since }, error: { not: null } } }),
    client.webhookAttempt.findFirst({
      where: { accountId, error: { not: null } },
      orderBy: [{ at: "desc" }, { id: "desc" }],
      select: { at: true, error: true, httpStatus: true },
    }),
    client.webhookEvent.count({ where: { accountId, status: "pending" } }),
    client.webhookEvent.findFirst({
      where: { accountId, status: "pending" },
      orderBy: { createdAt: "asc" },
      select: { createdAt: true },
    }),
  ]);
  return {
    url: endpoint?.url ?? null,
    last24h: {
      attempts,
      succeeded: attempts - failed,
      successRate: attempts === 0 ? null : (attempts - failed) / attempts,
    },
    lastError: lastError
      ? { at: lastError.at.toISOString(), error: lastError.error ?? "", httpStatus: lastError.httpStatus }
      : null,
    backlog: { pending, oldestAt: oldest?.createdAt.toISOString() ?? null },
  };
}
