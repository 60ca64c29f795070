"use client";

import { useAuditTrail } from "@/components/data/use-users";
import { Badge } from "@/components/ui/badge";
import { DataTable, LoadFailure, type Column } from "@/components/ui/data-table";
import { EmptyState } from "@/components/ui/empty-state";
import { Panel } from "@/components/ui/page-header";
import { useListFilters } from "@/components/ui/paged-list";
import { Pager } from "@/components/ui/pager";
import { TimeText } from "@/components/ui/time-text";
import { AUDIT_FILTERS } from "@/lib/audit/audit-query";
import { actionLabel, actionTone, actorText } from "./audit-labels";
import { AUDIT_PAGE_SIZE, type AuditEvent, type AuditPage } from "./user-types";

function EventRow({ event }: { event: AuditEvent }) {
  return (
    <tr className="border-t border-slate-100 align-top">
      <td className="w-32 px-3 py-2 text-slate-600 lg:w-auto lg:whitespace-nowrap">
        <TimeText iso={event.createdAt} />
      </td>
      <td className="px-3 py-2">
        <Badge tone={actionTone(event.action)} title={event.action}>
          {actionLabel(event.action)}
        </Badge>
        {/* What the narrow layout has no columns for. */}
        <div className="mt-1 space-y-0.5 text-xs break-all text-slate-500 lg:hidden">
          <div className="text-slate-800 sm:hidden">{actorText(event.actor)}</div>
          {event.target && <div className="font-mono">{event.target}</div>}
          {event.detail && <div className="break-words">{event.detail}</div>}
          {event.ip && <div>from {event.ip}</div>}
        </div>
      </td>
      <td className="hidden max-w-[14rem] truncate px-3 py-2 text-slate-800 sm:table-cell" title={event.actor}>
        {actorText(event.actor)}
      </td>
      <td className="hidden max-w-[14rem] truncate px-3 pt-2.5 pb-2 font-mono text-xs text-slate-700 lg:table-cell">
        {event.target}
      </td>
      <td className="hidden max-w-[20rem] px-3 py-2 break-words text-slate-600 lg:table-cell">{event.detail}</td>
      <td className="hidden px-3 pt-2.5 pb-2 font-mono text-xs text-slate-500 lg:table-cell">{event.ip}</td>
    </tr>
  );
}

const activityColumns: Column[] = [
  { label: "When" },
  { label: "What" },
  { label: "Who", className: "hidden sm:table-cell" },
  { label: "Target", className: "hidden lg:table-cell" },
  { label: "Detail", className: "hidden lg:table-cell" },
  { label: "Address", className: "hidden lg:table-cell" },
];

const noFilter = { action: "" };

/** The account's audit trail: sign-ins, and every change to keys, users, numbers, the webhook and settings. */
export function ActivityPanel({ initial }: { initial: AuditPage }) {
  const { filters, set, start, setStart, isFirstPage } = useListFilters(noFilter);
  const { action } = filters;
  const query = { action, start, count: AUDIT_PAGE_SIZE };
  const list = useAuditTrail(query, initial, isFirstPage);
  const page = list.data;
  const filterLabel = AUDIT_FILTERS.find((f) => f.value === action)?.label ?? "activity";

  return (
    <Panel
      title="Activity"
      description="Who signed in, and who changed keys, users, numbers, the webhook or settings. Newest first."
      actions={
        <label className="flex items-center gap-2 text-sm text-slate-600">
          Show
          <select
            value={action}
            onChange={(e) => set("action")(e.target.value)}
            className="rounded-md border border-slate-300 bg-white px-2 py-1 text-sm text-slate-800"
          >
            {AUDIT_FILTERS.map((filter) => (
              <option key={filter.value} value={filter.value}>
                {filter.label}
              </option>
            ))}
          </select>
        </label>
      }
    >
      {list.isError && <LoadFailure what="activity" error={list.error} />}
      {page && page.total === 0 ? (
        <EmptyState title={action ? `Nothing under “${filterLabel}” yet` : "No activity yet"}>
          {action ? "Choose another filter to see the rest." : "Sign-ins and changes appear here as they happen."}
        </EmptyState>
      ) : page ? (
        <>
          <DataTable label="Activity" columns={activityColumns}>
            {page.events.map((event) => (
              <EventRow key={event.id} event={event} />
            ))}
          </DataTable>
          <Pager start={start} count={AUDIT_PAGE_SIZE} total={page.total} onChange={setStart} label="events" />
        </>
      ) : null}
    </Panel>
  );
}
