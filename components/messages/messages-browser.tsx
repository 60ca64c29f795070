"use client";

import { useSearchParams } from "next/navigation";
import { useCallback, useMemo, type ReactNode } from "react";
import { useMessages } from "@/components/data/use-messages";
import { ApiFailure } from "@/components/ui/api-client";
import { Button } from "@/components/ui/button";
import { EmptyState } from "@/components/ui/empty-state";
import { SelectField } from "@/components/ui/field";
import { Notice } from "@/components/ui/notice";
import { Pager } from "@/components/ui/pager";
import { FILTER_PARAMS, type SortField } from "@/lib/messaging/listing-values";
import type { MessagePage } from "@/lib/messaging/list-messages";
import { MessageFilterForm } from "./message-filter-form";
import { MessagesTable } from "./messages-table";
import { filtersOf, hasFilters, listQueryOf, numberParam, sameQuery, searchOf, type ListQuery } from "./list-query";

const PAGE_SIZES = [10, 25, 50, 100];

/**
 * The Messages page's listing: filters, sorting and paging all live in the query string. Changing them pushes a
 * history entry (no server round trip for the page itself), so a bookmark or the back button brings the view back.
 */
export function MessagesBrowser({
  initial,
  timeZone,
  numbers,
  firstMessageHelp,
}: {
  initial: { query: ListQuery; page: MessagePage } | null;
  timeZone: string;
  numbers: string[];
  firstMessageHelp: ReactNode;
}) {
  const searchParams = useSearchParams();
  const query = useMemo(() => listQueryOf(searchParams), [searchParams]);
  // Rows on their way (queued, sending, sent) change status: the page follows them while it shows any.
  const list = useMessages(query, initial && sameQuery(initial.query, query) ? initial.page : undefined);

  const navigate = useCallback((next: ListQuery) => {
    // The App Router syncs useSearchParams with history.pushState, and back/forward restore the entry.
    window.history.pushState(null, "", `${window.location.pathname}${searchOf(next)}`);
  }, []);

  const failure = list.error instanceof ApiFailure ? list.error : null;
  const filterFailure = failure && (FILTER_PARAMS as readonly string[]).includes(failure.field ?? "") ? failure : null;
  const start = numberParam(query, "start");
  const count = numberParam(query, "count");
  const sortBy = (query.sortBy ?? "timestamp") as SortField;
  const sortDir = query.sortDir?.toLowerCase() === "asc" ? "asc" : "desc";
  const page = list.error ? undefined : list.data;
  // An account with no message at all gets the first-message help alone: there is nothing to filter yet.
  const nothingYet = page !== undefined && page.total === 0 && !hasFilters(query) && !list.isPlaceholderData;

  function sort(field: SortField) {
    const dir = field === sortBy ? (sortDir === "asc" ? "desc" : "asc") : field === "timestamp" ? "desc" : "asc";
    navigate({ ...query, sortBy: field, sortDir: dir, start: undefined });
  }

  return (
    <div className="space-y-4">
      {!nothingYet && (
        <MessageFilterForm
          key={searchOf(filtersOf(query))}
          query={query}
          numbers={numbers}
          error={filterFailure ? { field: filterFailure.field!, message: filterFailure.message } : null}
          onApply={(filters) =>
            navigate({ ...filters, count: query.count, sortBy: query.sortBy, sortDir: query.sortDir })
          }
        />
      )}

      {failure && !filterFailure && <Notice tone="error">{failure.message}</Notice>}
      {list.error && !failure && <Notice tone="error">{String(list.error)}</Notice>}
      {filterFailure && (
        <Notice tone="error">No messages are shown while a filter is not valid: see the field marked above.</Notice>
      )}

      {page && page.total === 0 && !list.isPlaceholderData ? (
        hasFilters(query) ? (
          <EmptyState
            title="No messages match these filters"
            action={
              <Button
                variant="secondary"
                onClick={() => navigate({ count: query.count, sortBy: query.sortBy, sortDir: query.sortDir })}
              >
                Clear filters
              </Button>
            }
          >
            Widen the time range, or remove a filter.
          </EmptyState>
        ) : (
          firstMessageHelp
        )
      ) : page && page.results.length === 0 && !list.isPlaceholderData ? (
        <EmptyState
          title="Nothing on this page"
          action={
            <Button variant="secondary" onClick={() => navigate({ ...query, start: undefined })}>
              First page
            </Button>
          }
        >
          There are {page.total.toLocaleString()} messages, all on earlier pages.
        </EmptyState>
      ) : page ? (
        <section
          aria-label="Messages"
          aria-busy={list.isFetching}
          className={list.isPlaceholderData ? "opacity-60" : ""}
        >
          <div className="mb-2 flex items-end justify-between gap-3 md:hidden">
            <SelectField
              label="Sort by"
              className="w-44"
              value={`${sortBy}:${sortDir}`}
              onChange={(event) => {
                const [field, dir] = event.target.value.split(":");
                navigate({ ...query, sortBy: field, sortDir: dir, start: undefined });
              }}
            >
              <option value="timestamp:desc">Newest first</option>
              <option value="timestamp:asc">Oldest first</option>
              <option value="status:asc">Status</option>
              <option value="to:asc">To</option>
              <option value="from:asc">From</option>
              <option value="numSegments:desc">Most segments</option>
            </SelectField>
          </div>
          <MessagesTable messages={page.results} timeZone={timeZone} sortBy={sortBy} sortDir={sortDir} onSort={sort} />
          <div className="flex flex-wrap items-center justify-between gap-x-4">
            <div className="grow">
              <Pager
                start={start}
                count={count}
                total={page.total}
                label="messages"
                onChange={(next) => navigate({ ...query, start: next > 0 ? String(next) : undefined })}
              />
            </div>
            <label className="flex items-center gap-2 pt-3 text-sm text-slate-600">
              Per page
              <select
                value={String(count)}
                onChange={(event) => navigate({ ...query, count: event.target.value, start: undefined })}
                className="rounded-md border border-slate-300 bg-white px-2 py-1 text-sm"
              >
                {[...new Set([...PAGE_SIZES, count])]
                  .sort((a, b) => a - b)
                  .map((size) => (
                    <option key={size} value={size}>
                      {size}
                    </option>
                  ))}
              </select>
            </label>
          </div>
        </section>
      ) : list.isPending ? (
        <p className="py-10 text-center text-sm text-slate-500" role="status">
          Loading messages…
        </p>
      ) : null}
    </div>
  );
}
