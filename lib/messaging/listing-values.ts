// The vocabulary of the message listing (GET /v3/messages and the portal's Messages page), with no server imports so
// that the portal's filter form offers exactly what lib/messaging/list-schema.ts accepts.
import { MESSAGE_STATUSES } from "./message-status";

/** The statuses a listing filters by: every message status, in lifecycle order. */
export const LISTING_STATUSES = MESSAGE_STATUSES;

export const SORT_FIELDS = ["timestamp", "from", "to", "status", "direction", "messageType", "numSegments"] as const;
export type SortField = (typeof SORT_FIELDS)[number];

/** The filter parameters, in the order the seed lists them. */
export const FILTER_PARAMS = [
  "messageId",
  "referenceId",
  "from",
  "to",
  "messageType",
  "direction",
  "status",
  "body",
  "timestampBegin",
  "timestampEnd",
] as const;
export type FilterParam = (typeof FILTER_PARAMS)[number];

/** The decisions' defaults for paging and sorting. */
export const LIST_DEFAULTS = { start: 0, count: 50, sortBy: "timestamp", sortDir: "desc" } as const;
