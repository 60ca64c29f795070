import { ApiError } from "../api/api-error";
import { db } from "../db/client";
import { env } from "../env";
import { liveWorkers, type LiveWorker } from "../delivery/worker-heartbeat";
import { webhookHealth, type WebhookHealth } from "../webhooks/webhook-health";
import { localDay } from "../accounts/local-time";
import { QUEUED_STATUSES } from "../messaging/message-status";
import { dailyUsage } from "../guard/daily-limits";
import type { UsageOfDay } from "../guard/limit-warnings";
import { listHeldGroups, type HeldGroup } from "../guard/held-messages";
import { sendSettings } from "../guard/send-settings";

export interface NumberQueue {
  number: string;
  label: string;
  ratePerSecond: number;
  /** Outbound messages waiting or part-way out, and their segments still to leave. */
  messages: number;
  segments: number;
  /** Of those messages, the bulk ones (they leave only inside the bulk window). */
  bulk: number;
  /** Seconds until the last waiting segment may leave: segments ÷ the number's rate (capped by the account's). */
  waitSeconds: number;
  /** When the oldest waiting message was accepted. */
  oldestAt: string | null;
}

export interface Dashboard {
  account: { id: string; name: string; timeZone: string; rateLimitPerSecond: number };
  today: { date: string; since: string; byStatus: Record<string, number>; total: number };
  queues: NumberQueue[];
  /** The webhook's health, and where events go (null: no webhook). */
  webhook: WebhookHealth & { url: string | null };
  /**
   * The deployment's default connection (the environment's CARRIER) and its workers' links: shown only to an account
   * with numbers on it (`usesDefault`); an account sees no other account's connections, only its own (`connections`).
   */
  carrier: { configured: string; usesDefault: boolean; workers: LiveWorker[] };
  connections: ConnectionHealthView[];
  /** The guard rails: today's usage of the daily limits, and the messages held for review by range. */
  guard: { usage: UsageOfDay; held: HeldGroup[] };
  at: string;
}

export interface ConnectionHealthView {
  id: string;
  name: string;
  type: string;
  enabled: boolean;
  /** unknown (not used yet) | up | down | connecting | disabled */
  state: string;
  stateDetail: string;
  stateSince: string | null;
  numbers: number;
}

const PENDING = [...QUEUED_STATUSES];

function emptyQueue(number: string, label: string, ratePerSecond: number): NumberQueue {
  return { number, label, ratePerSecond, messages: 0, segments: 0, bulk: 0, waitSeconds: 0, oldestAt: null };
}

/** What an admin's dashboard shows of the account: today's messages, queues, webhook health, the carrier link. */
export async function readDashboard(accountId: string, now = new Date()): Promise<Dashboard> {
  const client = db();
  const account = await client.account.findUnique({
    where: { id: accountId },
    select: { id: true, name: true, timeZone: true, rateLimitPerSecond: true },
  });
  if (!account) throw new ApiError("NotFound", { detail: `no account ${accountId}` });
  const day = localDay(now, account.timeZone);
  const [statuses, numbers, waiting, webhook, endpoint, workers, connections, usage, held] = await Promise.all([
    client.message.groupBy({
      by: ["status"],
      where: { accountId, createdAt: { gte: day.start } },
      _count: { _all: true },
    }),
    client.phoneNumber.findMany({
      where: { accountId },
      orderBy: { number: "asc" },
      select: { number: true, label: true, ratePerSecond: true, carrierId: true },
    }),
    client.message.groupBy({
      by: ["fromNumber", "bulk"],
      where: { accountId, direction: "outbound", status: { in: PENDING } },
      _count: { _all: true },
      _sum: { numSegments: true, partsSubmitted: true },
      _min: { createdAt: true },
    }),
    webhookHealth(accountId, now),
    client.webhookEndpoint.findUnique({ where: { accountId }, select: { url: true } }),
    liveWorkers(now),
    client.carrierConnection.findMany({
      where: { accountId },
      orderBy: { name: "asc" },
      select: { id: true, name: true, type: true, enabled: true, state: true, stateDetail: true, stateSince: true },
    }),
    sendSettings(accountId).then((settings) => dailyUsage(accountId, settings, now)),
    listHeldGroups(accountId),
  ]);
  const routed = new Map<string, number>();
  for (const n of numbers) if (n.carrierId) routed.set(n.carrierId, (routed.get(n.carrierId) ?? 0) + 1);
  const usesDefault = numbers.length === 0 || numbers.some((n) => n.carrierId === null);

  const byStatus: Record<string, number> = {};
  let total = 0;
  for (const row of statuses) {
    // Inbound messages have no delivery status: they count as received.
    const key = row.status || "received";
    byStatus[key] = (byStatus[key] ?? 0) + row._count._all;
    total += row._count._all;
  }

  const queues = new Map(numbers.map((n) => [n.number, emptyQueue(n.number, n.label, n.ratePerSecond)]));
  for (const row of waiting) {
    // A number released from the account while messages from it still wait: shown with the default rate.
    const queue = queues.get(row.fromNumber) ?? emptyQueue(row.fromNumber, "", 1);
    queue.messages += row._count._all;
    queue.segments += (row._sum.numSegments ?? 0) - (row._sum.partsSubmitted ?? 0);
    if (row.bulk) queue.bulk += row._count._all;
    const oldest = row._min.createdAt?.toISOString() ?? null;
    if (oldest && (!queue.oldestAt || oldest < queue.oldestAt)) queue.oldestAt = oldest;
    queues.set(row.fromNumber, queue);
  }
  for (const queue of queues.values()) {
    // The seed: at most ratePerSecond segments a second leave a number, and the account's limit caps every number.
    const rate = Math.min(queue.ratePerSecond, account.rateLimitPerSecond);
    queue.waitSeconds = rate > 0 ? queue.segments / rate : 0;
  }

  return {
    account,
    today: { date: day.date, since: day.start.toISOString(), byStatus, total },
    queues: [...queues.values()],
    webhook: { ...webhook, url: endpoint?.url ?? null },
    carrier: { configured: env().CARRIER, usesDefault, workers: usesDefault ? workers : [] },
    connections: connections.map((c) => ({
      id: c.id,
      name: c.name,
      type: c.type,
      enabled: c.enabled,
      state: c.enabled ? c.state : "disabled",
      stateDetail: c.stateDetail,
      stateSince: c.stateSince?.toISOString() ?? null,
      numbers: routed.get(c.id) ?? 0,
    })),
    guard: { usage, held },
    at: now.toISOString(),
  };
}
