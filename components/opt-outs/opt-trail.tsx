"use client";

import { useState } from "react";
import { useOptTrail, useOptTrailCsv, type TrailPage } from "@/components/data/use-opt-outs";
import { failureText } from "@/components/ui/api-client";
import { Badge } from "@/components/ui/badge";
import { EmptyState } from "@/components/ui/empty-state";
import { SelectField, TextField } from "@/components/ui/field";
import { serverFieldErrors, zodFieldErrors } from "@/components/ui/field-errors";
import { formatNumber } from "@/components/ui/format-time";
import { LocalTime } from "@/components/ui/local-time";
import { Notice } from "@/components/ui/notice";
import { Panel } from "@/components/ui/page-header";
import { Pager } from "@/components/ui/pager";
import { useListFilters } from "@/components/ui/paged-list";
import { TimeRangeFields } from "@/components/ui/time-range-fields";
import type { OptEventResult } from "@/lib/opt/manage-opt";
import { optEventQuery } from "@/lib/opt/opt-schemas";
import { TRAIL_PAGE, trailQuery, type TrailFilters } from "./trail-query";

/** Who acted, in words: a portal user by e-mail, a key by id, the CLI, or the phone itself. */
function actorText(event: OptEventResult): string {
  if (event.source === "keyword") return "The phone";
  if (event.actor.startsWith("user:")) return event.actor.slice(5);
  if (event.actor.startsWith("apiKey:")) return `API key ${event.actor.slice(7, 15)}…`;
  if (event.actor === "cli") return "Operator (CLI)";
  return event.actor || "—";
}

const noFilters: TrailFilters = { number: "", action: "", source: "", since: "", until: "" };

/** The audit trail of opt changes, filtered and paged, and its CSV with the same filters. */
export function OptTrail({ initial }: { initial: TrailPage }) {
  const { filters, set, start, setStart, isFirstPage, filtered } = useListFilters(noFilters);
  // The number applies when typed in full (Enter, or leaving the field), not at every keystroke.
  const [numberDraft, setNumberDraft] = useState("");
  const query = trailQuery(filters, start);
  const parsed = optEventQuery.safeParse(query);
  const invalid = zodFieldErrors(parsed);
  const trail = useOptTrail(query, initial, isFirstPage, parsed.success);
  // A filter the server refuses (a number that is not a real one) is shown beside its field.
  const errors = { ...invalid, ...(trail.isError ? serverFieldErrors(trail.error) : {}) };
  // The whole filtered trail, not just this page.
  const csvHref = useOptTrailCsv(query);
  const page = trail.data;
  return (
    <Panel
      title="Audit trail"
      description="Every change of opt state, by keyword or by a person. Never changed or deleted."
      actions={
        <a
          href={parsed.success ? csvHref : undefined}
          aria-disabled={!parsed.success}
          download
          className="inline-flex items-center justify-center rounded-md border border-slate-300 bg-white px-2.5 py-1 text-xs font-medium text-slate-800 hover:bg-slate-50 aria-disabled:pointer-events-none aria-disabled:text-slate-400"
        >
          Download CSV
        </a>
      }
    >
      <div className="grid grid-cols-2 gap-3 lg:grid-cols-5">
        <TextField
          label="Number"
          className="col-span-2 lg:col-span-1"
          inputMode="tel"
          placeholder="+14155550123"
          value={numberDraft}
          onChange={(e) => setNumberDraft(e.target.value)}
          onBlur={() => numberDraft !== filters.number && set("number")(numberDraft)}
          onKeyDown={(e) => {
            if (e.key === "Enter") set("number")(numberDraft);
          }}
          error={filters.number ? errors.number : undefined}
          hint="Press Enter to apply."
        />
        <SelectField label="Action" value={filters.action} onChange={(e) => set("action")(e.target.value)}>
          <option value="">In and out</option>
          <option value="out">Opted out</option>
          <option value="in">Opted in</option>
        </SelectField>
        <SelectField label="Source" value={filters.source} onChange={(e) => set("source")(e.target.value)}>
          <option value="">Any</option>
          <option value="keyword">Keyword from the phone</option>
          <option value="admin">A person (admin)</option>
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
        {trail.isError && !serverFieldErrors(trail.error).number && (
          <Notice tone="error">{failureText(trail.error)}</Notice>
        )}
        {page && page.events.length === 0 ? (
          filtered ? (
            <EmptyState title="No opt changes match these filters">Clear a filter or widen the time range.</EmptyState>
          ) : (
            <EmptyState title="No opt changes yet">
              They appear here when a phone texts STOP or START to one of your numbers, or when you opt a number out or
              in above.
            </EmptyState>
          )
        ) : page ? (
          <>
            {/* A table on a wide window; on a phone each change is a small card (the header row is hidden). */}
            <table className="w-full text-left text-sm">
              <caption className="sr-only">Opt changes, newest first</caption>
              <thead className="hidden border-b border-slate-200 text-xs text-slate-500 sm:table-header-group">
                <tr>
                  <th className="py-2 pr-3 font-medium">When</th>
                  <th className="py-2 pr-3 font-medium">Number</th>
                  <th className="py-2 pr-3 font-medium">Action</th>
                  <th className="py-2 pr-3 font-medium">Source</th>
                  <th className="py-2 pr-3 font-medium">By</th>
                  <th className="py-2 pr-3 font-medium">Note</th>
                </tr>
              </thead>
              <tbody>
                {page.events.map((event) => (
                  <tr
                    key={event.id}
                    className="grid grid-cols-[auto_1fr] items-center gap-x-3 gap-y-1 border-b border-slate-100 py-3 align-top sm:table-row sm:py-0"
                  >
                    <td className="col-span-2 text-xs whitespace-nowrap text-slate-600 sm:py-2 sm:pr-3">
                      <LocalTime iso={event.createdAt} />
                    </td>
                    <td className="font-mono whitespace-nowrap sm:py-2 sm:pr-3">{formatNumber(event.number)}</td>
                    <td className="sm:py-2 sm:pr-3">
                      <Badge tone={event.action === "out" ? "red" : "green"}>
                        {event.action === "out" ? "opted out" : "opted in"}
                      </Badge>
                    </td>
                    <td className="whitespace-nowrap sm:py-2 sm:pr-3">
                      {event.source === "keyword" ? (
                        <>
                          Keyword <span className="font-mono text-xs">{event.keyword}</span>
                        </>
                      ) : (
                        "Admin"
                      )}
                    </td>
                    <td className="min-w-0 break-all text-slate-700 sm:py-2 sm:pr-3" title={event.actor}>
                      <span className="text-slate-500 sm:hidden">by </span>
                      {actorText(event)}
                    </td>
                    <td
                      className={`col-span-2 break-words text-slate-700 sm:py-2 sm:pr-3 ${event.note ? "" : "hidden sm:table-cell"}`}
                    >
                      {event.note}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
            <Pager start={page.start} count={TRAIL_PAGE} total={page.total} onChange={setStart} label="changes" />
          </>
        ) : null}
      </div>
    </Panel>
  );
}
