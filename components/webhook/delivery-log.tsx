"use client";

import { useState } from "react";
import { useDeliveryLog, useRefreshWebhook, useResendEvents, type EventPage } from "@/components/data/use-webhook";
import { failureText } from "@/components/ui/api-client";
import { Badge, type BadgeTone } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { EmptyState } from "@/components/ui/empty-state";
import { SelectField } from "@/components/ui/field";
import { zodFieldErrors } from "@/components/ui/field-errors";
import { LocalTime } from "@/components/ui/local-time";
import { Notice } from "@/components/ui/notice";
import { Panel } from "@/components/ui/page-header";
import { Pager } from "@/components/ui/pager";
import { useListFilters } from "@/components/ui/paged-list";
import { TimeRangeFields } from "@/components/ui/time-range-fields";
import type { WebhookAttemptResult, WebhookEventResult } from "@/lib/webhooks/webhook-log";
import { eventQuery } from "@/lib/webhooks/webhook-schemas";
import { LOG_PAGE, logQuery, type LogFilters } from "./log-query";
import { ResendRange } from "./resend-range";

const statusTone: Record<string, BadgeTone> = { pending: "amber", delivered: "green", failed: "red" };

function kindLabel(event: WebhookEventResult): string {
  return event.kind === "message-received"
    ? "Inbound message"
    : event.kind === "message-status"
      ? "Delivery status"
      : event.kind === "limit-warning"
        ? "Daily limit warning"
        : event.kind;
}

/** One line about what the event says: who wrote, or what happened to which segment. */
function eventSummary(event: WebhookEventResult): string {
  const p = event.payload as Record<string, unknown>;
  if (event.kind === "message-received") return `from +${String(p.from ?? "")} to +${String(p.to ?? "")}`;
  if (event.kind === "message-status") {
    const segment = event.segmentNumber !== null ? `, segment ${event.segmentNumber}` : "";
    return `${String(p.status ?? "")} to +${String(p.to ?? "")}${segment}`;
  }
  if (event.kind === "limit-warning")
    return `${String(p.used ?? "")} of ${String(p.max ?? "")} ${String(p.limit ?? "")}`;
  return "";
}

function attemptText(attempt: WebhookAttemptResult): string {
  const status = attempt.httpStatus !== null ? `HTTP ${attempt.httpStatus}` : "No answer";
  return `${status} · ${attempt.latencyMs} ms`;
}

function Attempts({ event }: { event: WebhookEventResult }) {
  const attempts = event.attemptLog ?? [];
  return (
    <div className="space-y-3 border-t border-slate-100 bg-slate-50/60 px-4 py-3">
      {attempts.length === 0 ? (
        <p className="text-sm text-slate-500">No attempt yet: the first is due shortly.</p>
      ) : (
        // A table on a wide window; on a phone each attempt is a small block (the header row is hidden).
        <table className="w-full text-left text-xs">
          <caption className="sr-only">Attempts of event {event.id}</caption>
          <thead className="hidden text-slate-500 sm:table-header-group">
            <tr>
              <th className="py-1 pr-3 font-medium">When</th>
              <th className="py-1 pr-3 font-medium">URL</th>
              <th className="py-1 pr-3 font-medium">Status</th>
              <th className="py-1 pr-3 font-medium">Latency</th>
              <th className="py-1 pr-3 font-medium">Error</th>
            </tr>
          </thead>
          <tbody>
            {attempts.map((a) => (
              <tr
                key={a.id}
                className="flex flex-wrap items-center gap-x-3 gap-y-1 border-t border-slate-200 py-2 align-top sm:table-row sm:py-0"
              >
                <td className="whitespace-nowrap sm:py-1 sm:pr-3">
                  <LocalTime iso={a.at} />
                </td>
                <td className="max-w-[16rem] truncate font-mono sm:py-1 sm:pr-3" title={a.url}>
                  {a.url}
                </td>
                <td className="whitespace-nowrap sm:py-1 sm:pr-3">
                  <Badge tone={a.error ? "red" : "green"}>{a.httpStatus ?? "no answer"}</Badge>
                </td>
                <td className="whitespace-nowrap sm:py-1 sm:pr-3">{a.latencyMs} ms</td>
                <td
                  className={`w-full break-all text-slate-700 sm:w-auto sm:py-1 sm:pr-3 ${a.error ? "" : "hidden sm:table-cell"}`}
                >
                  {a.error ?? ""}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <details>
        <summary className="cursor-pointer text-xs font-medium text-slate-600">Payload</summary>
        <pre className="mt-1 max-h-64 overflow-auto rounded border border-slate-200 bg-white p-2 font-mono text-xs whitespace-pre-wrap break-all">
          {JSON.stringify(event.payload, null, 2)}
        </pre>
      </details>
    </div>
  );
}

function EventRow({ event }: { event: WebhookEventResult }) {
  const [open, setOpen] = useState(false);
  const resend = useResendEvents<{ eventId: string }>();
  const last = event.attemptLog?.[0];
  return (
    <li className="rounded-md border border-slate-200 bg-white" data-event-id={event.id}>
      <div className="flex flex-wrap items-center gap-x-4 gap-y-2 px-4 py-3 text-sm">
        <div className="w-40 shrink-0 text-xs text-slate-600">
          <LocalTime iso={event.createdAt} />
        </div>
        <div className="min-w-0 flex-1 basis-48">
          <p className="flex flex-wrap items-center gap-1.5 font-medium text-slate-900">
            {kindLabel(event)}
            {event.test && <Badge tone="indigo">test</Badge>}
          </p>
          <p className="truncate text-xs text-slate-500" title={event.id}>
            {eventSummary(event)}
          </p>
        </div>
        <div className="w-24 shrink-0">
          <Badge tone={statusTone[event.status] ?? "gray"}>{event.status}</Badge>
        </div>
        <div className="w-44 shrink-0 text-xs text-slate-600">
          {last ? (
            <span className={last.error ? "text-red-700" : ""}>
              {attemptText(last)}
              {event.attempts > 1 && <span className="text-slate-500"> · {event.attempts} attempts</span>}
            </span>
          ) : (
            "Not tried yet"
          )}
          {event.nextAttemptAt && (
            <span className="block text-slate-500">
              Next try <LocalTime iso={event.nextAttemptAt} />
            </span>
          )}
        </div>
        <div className="flex shrink-0 gap-2">
          <Button
            variant="ghost"
            size="sm"
            aria-expanded={open}
            onClick={() => setOpen((v) => !v)}
            aria-label={`Attempts of ${kindLabel(event)} ${event.id}`}
          >
            {open ? "Hide" : "Attempts"}
          </Button>
          <Button
            variant="secondary"
            size="sm"
            disabled={resend.isPending}
            onClick={() => resend.mutate({ eventId: event.id })}
            aria-label={`Resend ${kindLabel(event)} ${event.id}`}
          >
            {resend.isPending ? "Resending…" : "Resend"}
          </Button>
        </div>
      </div>
      {event.lastError && event.status !== "delivered" && !open && (
        <p className="truncate px-4 pb-3 text-xs text-red-700" title={event.lastError}>
          {event.lastError}
        </p>
      )}
      {resend.isSuccess && (
        <p className="px-4 pb-3 text-xs text-emerald-700" role="status">
          Queued again: it is sent within moments.
        </p>
      )}
      {resend.isError && (
        <p className="px-4 pb-3 text-xs text-red-700" role="alert">
          {failureText(resend.error)}
        </p>
      )}
      {open && <Attempts event={event} />}
    </li>
  );
}

const noFilters: LogFilters = { status: "", kind: "", since: "", until: "" };

/** Events with their attempts, filtered and paged, refreshed every few seconds while the page is open. */
export function DeliveryLog({ initial, hasUrl }: { initial: EventPage; hasUrl: boolean }) {
  const refresh = useRefreshWebhook();
  const { filters, set, start, setStart, isFirstPage, filtered } = useListFilters(noFilters);
  const query = logQuery(filters, start);
  const parsed = eventQuery.safeParse(query);
  const errors = zodFieldErrors(parsed);
  const log = useDeliveryLog(query, initial, { isFirstPage, enabled: parsed.success, refetchInterval: 5_000 });
  const page = log.data;
  return (
    <Panel
      title="Delivery log"
      description="Every event with its attempts, newest first. Failed attempts are retried for 24 hours."
      actions={
        <Button variant="secondary" size="sm" onClick={() => void refresh()}>
          Refresh
        </Button>
      }
    >
      <div className="grid grid-cols-2 gap-3 lg:grid-cols-4">
        <SelectField label="Status" value={filters.status} onChange={(e) => set("status")(e.target.value)}>
          <option value="">All</option>
          <option value="pending">Pending</option>
          <option value="delivered">Delivered</option>
          <option value="failed">Failed</option>
        </SelectField>
        <SelectField label="Kind" value={filters.kind} onChange={(e) => set("kind")(e.target.value)}>
          <option value="">All</option>
          <option value="message-received">Inbound message</option>
          <option value="message-status">Delivery status</option>
          <option value="limit-warning">Daily limit warnings</option>
          <option value="test">Test events</option>
        </SelectField>
        <TimeRangeFields
          since={filters.since}
          until={filters.until}
          onSince={set("since")}
          onUntil={set("until")}
          errors={errors}
        />
      </div>
      <div className="mt-4">
        {log.isError && <Notice tone="error">{failureText(log.error)}</Notice>}
        {page && page.events.length === 0 ? (
          filtered ? (
            <EmptyState title="No events match these filters">Clear a filter or widen the time range.</EmptyState>
          ) : (
            <EmptyState title="No events yet">
              {hasUrl
                ? "Events are written when a message arrives or a delivery status comes in. Send a test event to check your receiver now."
                : "Save a URL above: from then on, inbound messages and delivery statuses are posted to it and listed here."}
            </EmptyState>
          )
        ) : page ? (
          <>
            <ul className="space-y-2" aria-label="Webhook events">
              {page.events.map((event) => (
                <EventRow key={event.id} event={event} />
              ))}
            </ul>
            <Pager start={page.start} count={LOG_PAGE} total={page.total} onChange={setStart} label="events" />
          </>
        ) : null}
      </div>
      <ResendRange />
    </Panel>
  );
}
