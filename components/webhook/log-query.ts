import type { Query } from "@/components/ui/api-client";
import { localInputToIso } from "@/components/ui/local-time-input";

// Shared by the page (first paint on the server) and the log (the browser's fetches): one page size, one query.

export const LOG_PAGE = 20;

export interface LogFilters {
  status: string;
  kind: string;
  /** datetime-local values, in the viewer's zone. */
  since: string;
  until: string;
}

/** The log's query for its filters and page: the same object is the query key and the query string. */
export function logQuery(filters: LogFilters, start: number) {
  return {
    status: filters.status || undefined,
    kind: filters.kind || undefined,
    since: localInputToIso(filters.since),
    until: localInputToIso(filters.until),
    start,
    limit: LOG_PAGE,
    include: "attempts",
  } satisfies Query;
}
