import type { Query } from "@/components/ui/api-client";
import { localInputToIso } from "@/components/ui/local-time-input";

// Shared by the page (first paint on the server) and the trail (the browser's fetches and the CSV link).

export const TRAIL_PAGE = 25;
export const OPTED_OUT_PAGE = 10;

export interface TrailFilters {
  number: string;
  action: string;
  source: string;
  /** datetime-local values, in the viewer's zone. */
  since: string;
  until: string;
}

export function trailQuery(filters: TrailFilters, start: number) {
  return {
    number: filters.number.trim() || undefined,
    action: filters.action || undefined,
    source: filters.source || undefined,
    since: localInputToIso(filters.since),
    until: localInputToIso(filters.until),
    start,
    count: TRAIL_PAGE,
  } satisfies Query;
}
