import { z } from "zod";
import { ApiError } from "../api/api-error";
import { UUID_PATTERN } from "../db/ids";
import { tnDigits } from "./phone-number";
import { parseFilterTimestamp } from "./time-format";
import { LIST_DEFAULTS, LISTING_STATUSES, SORT_FIELDS } from "./listing-values";

export { LISTING_STATUSES, SORT_FIELDS };

// Query parameters of GET /v3/messages as documented (strings on the wire; checked and converted in parseListQuery,
// which reads only this schema's keys). The .meta() calls document the decisions for lib/api/openapi/: the types,
// defaults and bounds they state are those parseListQuery applies.
export const listQuerySchema = z.object({
  accountId: z.string().meta({
    format: "uuid",
    description:
      "The account to list (required; absent: MissingAccountId). Must be the credentials' account, else 403 Forbidden.",
    example: "0195f3a2-7c4e-7b1a-9d2e-4f5a6b7c8d9e",
  }),
  messageId: z.string().meta({ format: "uuid", description: "Only the message with this messageId." }).optional(),
  referenceId: z
    .string()
    .meta({ pattern: "^[A-Za-z0-9]{1,40}$", description: "Only messages sent with this referenceId." })
    .optional(),
  from: z
    .string()
    .meta({
      description: "Only messages from this TN; digits with country code, '+' optional (encode '+' as %2B).",
      example: "14155550100",
    })
    .optional(),
  to: z
    .string()
    .meta({
      description: "Only messages to this TN; digits with country code, '+' optional (encode '+' as %2B).",
      example: "12125550123",
    })
    .optional(),
  messageType: z.enum(["sms", "mms"]).meta({ description: "Only messages of this type." }).optional(),
  direction: z.enum(["outbound", "inbound"]).meta({ description: "Only messages in this direction." }).optional(),
  status: z
    .enum(LISTING_STATUSES)
    .meta({ description: 'Only outbound messages with this delivery status (inbound messages have status "").' })
    .optional(),
  body: z.string().meta({ description: "Only messages whose body contains this text, ignoring case." }).optional(),
  timestampBegin: z
    .string()
    .meta({
      description:
        "Only messages received at or after this instant (inclusive). ISO 8601, a date or a date-time with any offset (`2026-11-21`, `2026-11-21T22:52:12Z`, `2026-11-21T17:52:12-05:00`), or the listing form `YYYY-MM-DD HH:mm:ss.SSS`, read as UTC.",
      example: "2026-11-21 00:00:00.000",
    })
    .optional(),
  timestampEnd: z
    .string()
    .meta({
      description: "Only messages received before this instant (exclusive). Same forms as timestampBegin.",
      example: "2026-11-22",
    })
    .optional(),
  start: z
    .string()
    .meta({
      type: "integer",
      minimum: 0,
      maximum: 1_000_000_000,
      default: 0,
      description: "Offset of the first result (paging).",
    })
    .optional(),
  count: z
    .string()
    .meta({
      type: "integer",
      minimum: 1,
      maximum: 1000,
      default: 50,
      description: "Number of results to return, 1 to 1000.",
    })
    .optional(),
  after: z
    .string()
    .meta({
      format: "uuid",
      description:
        "Keyset paging: only the results that come after this message in the listing's order (pass the last messageId of a page to get the next one). Costs the same at any depth, unlike a large `start`. The message must be one of the account's; `start` then counts from it.",
    })
    .optional(),
  before: z
    .string()
    .meta({
      format: "uuid",
      description:
        "Keyset paging backwards: only the results that come before this message in the listing's order (pass the first messageId of a page to get the previous one). Not with `after`.",
    })
    .optional(),
  sortBy: z
    .enum(SORT_FIELDS)
    .meta({ default: "timestamp", description: "Field to sort by; ties are broken by time, then by messageId." })
    .optional(),
  sortDir: z
    .enum(["asc", "desc"])
    .meta({ default: "desc", description: "Sort direction (case-insensitive)." })
    .optional(),
});

export interface ListQuery {
  accountId: string;
  messageId?: string;
  referenceId?: string;
  from?: string;
  to?: string;
  messageType?: "sms" | "mms";
  direction?: "outbound" | "inbound";
  status?: (typeof LISTING_STATUSES)[number];
  body?: string;
  timestampBegin?: Date;
  timestampEnd?: Date;
  start: number;
  count: number;
  /** Keyset paging: results after (or before) this message in the listing's order. */
  after?: string;
  before?: string;
  sortBy: (typeof SORT_FIELDS)[number];
  sortDir: "asc" | "desc";
  /** The parameters as given, echoed in the response's data. */
  echo: Record<string, string>;
}

function invalid(parameter: string, why: string): ApiError {
  return new ApiError("InvalidRequest", { detail: `'${parameter}' ${why}`, field: parameter });
}

function oneOf<T extends string>(parameter: string, value: string, allowed: readonly T[]): T {
  if (!(allowed as readonly string[]).includes(value)) throw invalid(parameter, `must be one of ${allowed.join(", ")}`);
  return value as T;
}

function integer(parameter: string, value: string, min: number, max: number): number {
  if (!/^\d+$/.test(value)) throw invalid(parameter, `must be a whole number from ${min} to ${max}`);
  const n = Number(value);
  if (n < min || n > max) throw invalid(parameter, `must be a whole number from ${min} to ${max}`);
  return n;
}

/** The decisions for the listing query: accountId required, defaults, allowed values; anything else InvalidRequest. */
export function parseListQuery(params: URLSearchParams): ListQuery {
  const get = (name: string): string | undefined => {
    const value = params.get(name);
    return value === null || value.trim() === "" ? undefined : value.trim();
  };
  const accountId = get("accountId");
  if (accountId === undefined) throw new ApiError("MissingAccountId");
  if (!UUID_PATTERN.test(accountId)) throw invalid("accountId", "must be a UUID");

  const echo: Record<string, string> = {};
  for (const name of Object.keys(listQuerySchema.shape)) {
    const value = get(name);
    if (value !== undefined) echo[name] = value;
  }
  const query: ListQuery = {
    accountId,
    ...LIST_DEFAULTS,
    echo,
  };
  const messageId = get("messageId");
  if (messageId !== undefined) {
    if (!UUID_PATTERN.test(messageId)) throw invalid("messageId", "must be a UUID");
    query.messageId = messageId.toLowerCase();
  }
  const referenceId = get("referenceId");
  if (referenceId !== undefined) {
    if (!/^[A-Za-z0-9]{1,40}$/.test(referenceId)) throw invalid("referenceId", "must be 1 to 40 letters or digits");
    query.referenceId = referenceId;
  }
  for (const name of ["from", "to"] as const) {
    const value = get(name);
    if (value === undefined) continue;
    // A '+' in a query string arrives as a space unless encoded; both forms mean the same number.
    const digits = tnDigits(value.replace(/^ /, "+"));
    if (digits === null) throw invalid(name, "must be a telephone number: digits with country code");
    query[name] = digits;
  }
  const messageType = get("messageType");
  if (messageType !== undefined) query.messageType = oneOf("messageType", messageType, ["sms", "mms"] as const);
  const direction = get("direction");
  if (direction !== undefined) query.direction = oneOf("direction", direction, ["outbound", "inbound"] as const);
  const status = get("status");
  if (status !== undefined) query.status = oneOf("status", status, LISTING_STATUSES);
  const body = params.get("body");
  if (body !== null && body !== "") {
    if (body.length > 1600) throw invalid("body", "must be at most 1600 characters");
    query.body = body;
  }
  for (const name of ["timestampBegin", "timestampEnd"] as const) {
    const value = get(name);
    if (value === undefined) continue;
    const date = parseFilterTimestamp(value);
    if (date === null)
      throw invalid(name, "must be ISO 8601 (2026-11-21T22:52:12Z) or 'YYYY-MM-DD HH:mm:ss.SSS' (UTC)");
    query[name] = date;
  }
  for (const name of ["after", "before"] as const) {
    const value = get(name);
    if (value === undefined) continue;
    if (!UUID_PATTERN.test(value)) throw invalid(name, "must be the messageId (a UUID) of a message of the account");
    query[name] = value.toLowerCase();
  }
  if (query.after && query.before) throw invalid("before", "cannot be given together with 'after'");
  const start = get("start");
  if (start !== undefined) query.start = integer("start", start, 0, 1_000_000_000);
  const count = get("count");
  if (count !== undefined) query.count = integer("count", count, 1, 1000);
  const sortBy = get("sortBy");
  if (sortBy !== undefined) query.sortBy = oneOf("sortBy", sortBy, SORT_FIELDS);
  const sortDir = get("sortDir");
  if (sortDir !== undefined) query.sortDir = oneOf("sortDir", sortDir.toLowerCase(), ["asc", "desc"] as const);
  return query;
}
