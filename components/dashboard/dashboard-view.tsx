"use client";

import Link from "next/link";
import { ConnectionStateBadge, stateWords } from "@/components/carriers/connection-state";
import { useDashboard } from "@/components/data/use-dashboard";
import { failureText } from "@/components/ui/api-client";
import { Badge, type BadgeTone } from "@/components/ui/badge";
import { formatAgo, formatDuration, formatInZone, formatNumber } from "@/components/ui/format-time";
import { Panel } from "@/components/ui/page-header";
import { CONNECTION_KINDS, CONNECTION_TYPES, type ConnectionType } from "@/lib/carriers/connections/connection-kinds";
import type { Dashboard } from "@/lib/dashboard/read-dashboard";
import { MESSAGE_STATUSES, type MessageStatus } from "@/lib/messaging/message-status";
import type { LiveWorker } from "@/lib/delivery/worker-heartbeat";
import { HeldPanel, LimitsPanel } from "./guard-panels";

const REFRESH_MS = 5_000;

const TILE_TONES: Record<MessageStatus | "received", BadgeTone> = {
  held: "amber",
  scheduled: "gray",
  queued: "gray",
  sending: "blue",
  sent: "blue",
  delivered: "green",
  undelivered: "red",
  failed: "red",
  expired: "amber",
  rejected: "red",
  cancelled: "gray",
  received: "indigo",
};

// Today's tiles, in lifecycle order; "received" is inbound.
const STATUS_TILES = [...MESSAGE_STATUSES, "received" as const].map((status) => ({ status, tone: TILE_TONES[status] }));

/** The admin's overview, read again every 5 seconds. */
export function DashboardView({ initial }: { initial: Dashboard }) {
  const query = useDashboard(initial, REFRESH_MS);
  const dashboard = query.data;
  const zone = dashboard.account.timeZone;
  const now = Date.parse(dashboard.at);
  return (
    <div className="space-y-6">
      <p className="text-xs text-slate-500" role="status">
        As of {formatInZone(dashboard.at, zone)} ({zone}); refreshes every {REFRESH_MS / 1000} s.
        {query.error && <span className="text-red-700"> Could not refresh: {failureText(query.error)}</span>}
      </p>
      <HeldPanel dashboard={dashboard} />
      <TodayPanel dashboard={dashboard} />
      <LimitsPanel dashboard={dashboard} />
      <div className="grid gap-6 lg:grid-cols-2">
        <CarrierPanel dashboard={dashboard} now={now} />
        <WebhookPanel dashboard={dashboard} now={now} />
      </div>
      <QueuesPanel dashboard={dashboard} now={now} />
    </div>
  );
}

function TodayPanel({ dashboard }: { dashboard: Dashboard }) {
  const { today } = dashboard;
  const begin = encodeURIComponent(today.since);
  return (
    <Panel
      title="Messages today"
      description={`${today.date} in ${dashboard.account.timeZone}: ${today.total.toLocaleString()} in all.`}
    >
      <ul className="grid grid-cols-3 gap-2 sm:grid-cols-5 lg:grid-cols-9">
        {STATUS_TILES.map(({ status, tone }) => {
          const count = today.byStatus[status] ?? 0;
          const filter = status === "received" ? "direction=inbound" : `status=${status}`;
          return (
            <li key={status}>
              <Link
                href={`/messages?${filter}&timestampBegin=${begin}`}
                aria-label={`${status}: ${count} today`}
                className="block rounded-md border border-slate-200 px-2 py-2 text-center hover:border-indigo-300 hover:bg-indigo-50/40"
              >
                <span
                  className={`block text-2xl font-semibold tabular-nums ${count === 0 ? "text-slate-300" : "text-slate-900"}`}
                >
                  {count.toLocaleString()}
                </span>
                <span className="mt-1 inline-block">
                  <Badge tone={tone}>{status}</Badge>
                </span>
              </Link>
            </li>
          );
        })}
      </ul>
    </Panel>
  );
}

function workerLabel(worker: LiveWorker): { text: string; tone: BadgeTone } {
  if (worker.state === "connected")
    return { text: worker.carrier === "simulator" ? "connected (simulator)" : "connected", tone: "green" };
  if (worker.state === "bound") return { text: "bound", tone: "green" };
  if (worker.state === "connecting") return { text: "connecting", tone: "amber" };
  return { text: "down", tone: "red" };
}

/**
 * The links to the network: the deployment's default connection (its workers), shown only while some of the
 * account's numbers use it, and the account's own carrier connections with their health.
 */
function CarrierPanel({ dashboard, now }: { dashboard: Dashboard; now: number }) {
  const { usesDefault, configured } = dashboard.carrier;
  return (
    <Panel title="Carrier" description="The links to the network your numbers send and receive through.">
      <div className="space-y-5">
        {usesDefault && (
          <div>
            <h3 className="text-sm font-semibold text-slate-800">Default connection</h3>
            <p className="mb-2 text-xs text-slate-500">
              CARRIER={configured} on this server, for the numbers not routed to a connection of their own.
            </p>
            <DefaultWorkers dashboard={dashboard} now={now} />
          </div>
        )}
        <ConnectionsList dashboard={dashboard} now={now} />
      </div>
    </Panel>
  );
}

function DefaultWorkers({ dashboard, now }: { dashboard: Dashboard; now: number }) {
  const { workers } = dashboard.carrier;
  const zone = dashboard.account.timeZone;
  if (workers.length === 0)
    return (
      <div className="space-y-2 text-sm">
        <Badge tone="red">No worker running</Badge>
        <p className="text-slate-600">
          Nothing is being sent: queued messages wait until a delivery worker runs. The server runs one unless it was
          started with <code className="font-mono text-xs">PARLEY_WORKER=false</code>; then start one with{" "}
          <code className="font-mono text-xs">npm run worker</code>.
        </p>
      </div>
    );
  return (
    <ul className="space-y-3 text-sm">
      {workers.map((worker) => {
        const label = workerLabel(worker);
        return (
          <li key={worker.workerId} aria-label={`Worker ${worker.workerId}`}>
            <div className="flex flex-wrap items-center gap-2">
              <Badge tone={label.tone}>{label.text}</Badge>
              <span className="text-slate-600">
                {worker.carrier !== "simulator" && <span className="font-medium">{worker.carrier} </span>}
                since{" "}
                <span title={worker.since}>
                  {formatInZone(worker.since, zone)} ({formatAgo(worker.since, now)})
                </span>
              </span>
            </div>
            {worker.detail && worker.carrier !== "simulator" && (
              <p className="mt-1 font-mono text-xs break-all text-slate-600">{worker.detail}</p>
            )}
            <p className="mt-1 text-xs text-slate-500">
              Worker {worker.workerId} · heartbeat {formatAgo(worker.updatedAt, now)}
            </p>
          </li>
        );
      })}
    </ul>
  );
}

function kindLabel(type: string): string {
  return (CONNECTION_TYPES as readonly string[]).includes(type) ? CONNECTION_KINDS[type as ConnectionType].label : type;
}

/** The account's own carrier connections and their health, as the worker last recorded it. */
function ConnectionsList({ dashboard, now }: { dashboard: Dashboard; now: number }) {
  const { connections } = dashboard;
  return (
    <div>
      <h3 className="mb-2 text-sm font-semibold text-slate-800">Carrier connections</h3>
      {connections.length === 0 ? (
        <p className="text-sm text-slate-600">
          None of the account&apos;s own: every number uses the default connection.{" "}
          <Link href="/carriers" className="text-indigo-700 underline">
            Add one
          </Link>{" "}
          to send through your own provider account.
        </p>
      ) : (
        <ul className="space-y-3 text-sm" aria-label="Carrier connections">
          {connections.map((connection) => {
            const detail = stateWords(connection.state, connection.stateDetail);
            return (
              <li key={connection.id}>
                <div className="flex flex-wrap items-center gap-2">
                  <ConnectionStateBadge state={connection.state} detail={connection.stateDetail} />
                  <span className="font-medium break-all text-slate-900">{connection.name}</span>
                  <span className="text-slate-600">
                    {kindLabel(connection.type)} · {connection.numbers.toLocaleString()} number
                    {connection.numbers === 1 ? "" : "s"}
                  </span>
                </div>
                {detail && <p className="mt-1 text-xs break-words text-slate-600">{detail}</p>}
                {connection.stateSince && (
                  <p className="mt-1 text-xs text-slate-500" title={connection.stateSince}>
                    {connection.state} since {formatAgo(connection.stateSince, now)}
                  </p>
                )}
              </li>
            );
          })}
        </ul>
      )}
      {connections.length > 0 && (
        <p className="mt-3 text-sm">
          <Link href="/carriers" className="text-indigo-700 underline">
            Manage carriers
          </Link>
        </p>
      )}
    </div>
  );
}

function WebhookPanel({ dashboard, now }: { dashboard: Dashboard; now: number }) {
  const {
    url,
    attempts,
    accepted,
    successRate: rate,
    lastError,
    backlog,
    oldestPendingAt,
    failedEvents,
  } = dashboard.webhook;
  if (!url) {
    return (
      <Panel title="Webhook" description="Where inbound messages and delivery statuses are posted.">
        <p className="text-sm text-slate-600">
          No webhook is set: events are not sent anywhere.{" "}
          <Link href="/webhook" className="text-indigo-700 underline">
            Set one
          </Link>
          .
        </p>
      </Panel>
    );
  }
  const oldestAge = oldestPendingAt ? (now - Date.parse(oldestPendingAt)) / 1000 : 0;
  const health: { text: string; tone: BadgeTone } =
    rate !== null && rate < 0.5
      ? { text: "failing", tone: "red" }
      : (rate !== null && rate < 0.95) || oldestAge > 60
        ? { text: "degraded", tone: "amber" }
        : { text: "healthy", tone: "green" };
  return (
    <Panel
      title="Webhook"
      description={<span className="break-all">{url}</span>}
      actions={<Badge tone={health.tone}>{health.text}</Badge>}
    >
      <dl className="grid grid-cols-[max-content_1fr] gap-x-4 gap-y-2 text-sm">
        <dt className="text-slate-500">Last 24 h</dt>
        <dd>
          {rate === null
            ? "No deliveries attempted."
            : `${Math.floor(rate * 1000) / 10} % accepted (${accepted.toLocaleString()} of ${attempts.toLocaleString()} attempts)`}
        </dd>
        <dt className="text-slate-500">Backlog</dt>
        <dd>
          {backlog === 0
            ? "Nothing waiting."
            : `${backlog.toLocaleString()} event${backlog === 1 ? "" : "s"} waiting, the oldest for ${formatDuration(oldestAge).replace("≈ ", "")}`}
          {failedEvents > 0 && (
            <span className="block text-red-700">
              {failedEvents.toLocaleString()} gave up after a day of retries: resend them from the Webhook page.
            </span>
          )}
        </dd>
        <dt className="text-slate-500">Last error</dt>
        <dd className="min-w-0">
          {lastError ? (
            <>
              <span className="break-words">
                {lastError.httpStatus && !lastError.error.startsWith("HTTP") ? `HTTP ${lastError.httpStatus}: ` : ""}
                {lastError.error}
              </span>{" "}
              <span className="text-slate-500">({formatAgo(lastError.at, now)})</span>
            </>
          ) : (
            "None."
          )}
        </dd>
      </dl>
      <p className="mt-3 text-sm">
        <Link href="/webhook" className="text-indigo-700 underline">
          Delivery log
        </Link>
      </p>
    </Panel>
  );
}

function QueuesPanel({ dashboard, now }: { dashboard: Dashboard; now: number }) {
  const { queues } = dashboard;
  const waiting = queues.reduce((sum, q) => sum + q.messages, 0);
  return (
    <Panel
      title="Queues"
      description="Outbound messages waiting per sending number, and how long the last of them waits at the number's rate."
    >
      {queues.length === 0 ? (
        <p className="text-sm text-slate-600">
          The account has no numbers yet.{" "}
          <Link href="/numbers" className="text-indigo-700 underline">
            Add one
          </Link>{" "}
          to send messages.
        </p>
      ) : (
        <>
          {waiting === 0 && <p className="mb-3 text-sm text-slate-600">Nothing is waiting: every queue is empty.</p>}
          <div className="overflow-x-auto">
            <table className="w-full text-left text-sm">
              <thead className="text-slate-500">
                <tr>
                  <th scope="col" className="py-2 pr-3 font-medium">
                    Number
                  </th>
                  <th scope="col" className="py-2 pr-3 text-right font-medium">
                    Waiting
                  </th>
                  <th scope="col" className="hidden py-2 pr-3 text-right font-medium sm:table-cell">
                    Segments
                  </th>
                  <th scope="col" className="hidden py-2 pr-3 text-right font-medium sm:table-cell">
                    Rate
                  </th>
                  <th scope="col" className="py-2 pr-3 font-medium">
                    Expected wait
                  </th>
                </tr>
              </thead>
              <tbody>
                {queues.map((queue) => (
                  <tr key={queue.number} className="border-t border-slate-100">
                    <td className="py-2 pr-3 whitespace-nowrap">
                      <span className="font-mono">{formatNumber(queue.number)}</span>
                      {queue.label && <span className="ml-2 text-xs text-slate-500">{queue.label}</span>}
                      <span className="block text-xs text-slate-500 sm:hidden">
                        {queue.segments.toLocaleString()} segments at {queue.ratePerSecond}/s
                      </span>
                    </td>
                    <td className="py-2 pr-3 text-right tabular-nums">
                      {queue.messages.toLocaleString()}
                      {queue.bulk > 0 && (
                        <span className="block text-xs text-slate-500">{queue.bulk.toLocaleString()} bulk</span>
                      )}
                    </td>
                    <td className="hidden py-2 pr-3 text-right tabular-nums sm:table-cell">
                      {queue.segments.toLocaleString()}
                    </td>
                    <td className="hidden py-2 pr-3 text-right whitespace-nowrap tabular-nums sm:table-cell">
                      {queue.ratePerSecond}/s
                    </td>
                    <td className="py-2 pr-3 whitespace-nowrap">
                      {queue.messages === 0 ? (
                        <span className="text-slate-500">—</span>
                      ) : (
                        <>
                          {formatDuration(queue.waitSeconds)}
                          {queue.oldestAt && (
                            <span className="block text-xs text-slate-500">
                              oldest queued {formatAgo(queue.oldestAt, now)}
                            </span>
                          )}
                        </>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {queues.some((q) => q.bulk > 0) && (
            <p className="mt-3 text-xs text-slate-500">
              Bulk messages leave after ad hoc ones, and only inside the bulk window, so they may wait longer.
            </p>
          )}
        </>
      )}
    </Panel>
  );
}
