import { FILTER_PARAMS, LIST_DEFAULTS, type FilterParam } from "@/lib/messaging/listing-values";

// The Messages page keeps its whole state in the URL's query string (bookmarkable; back and forward work): the
// listing's own parameters, passed to the API as they are, so that a bad one gets the API's answer beside its field.

export const LIST_PARAMS = [...FILTER_PARAMS, "start", "count", "sortBy", "sortDir"] as const;
export type ListParam = (typeof LIST_PARAMS)[number];
export type ListQuery = Partial<Record<ListParam, string>>;

/** The listing parameters of a query string (others ignored, empty ones dropped, defaults left out). */
export function listQueryOf(params: URLSearchParams | Record<string, string | string[] | undefined>): ListQuery {
  const get = (name: string): string | undefined => {
    const value = params instanceof URLSearchParams ? params.get(name) : params[name];
    const text = Array.isArray(value) ? value[value.length - 1] : value;
    return text === undefined || text === null || text.trim() === "" ? undefined : text;
  };
  const query: ListQuery = {};
  for (const name of LIST_PARAMS) {
    const value = get(name);
    if (value === undefined) continue;
    if (name !== "body" && String(LIST_DEFAULTS[name as keyof typeof LIST_DEFAULTS] ?? "") === value.trim()) continue;
    query[name] = name === "body" ? value : value.trim();
  }
  return query;
}

/** The query string of a listing state, with a leading "?" (or "" when it is all defaults). */
export function searchOf(query: ListQuery): string {
  const params = new URLSearchParams();
  for (const name of LIST_PARAMS) {
    const value = query[name];
    if (value !== undefined && value !== "") params.set(name, value);
  }
  const text = params.toString();
  return text ? `?${text}` : "";
}

export function hasFilters(query: ListQuery): boolean {
  return FILTER_PARAMS.some((name) => query[name] !== undefined);
}

export function sameQuery(a: ListQuery, b: ListQuery): boolean {
  return searchOf(a) === searchOf(b);
}

/** A whole number from the query, or the default when absent or not one (the API says what is wrong with it). */
export function numberParam(query: ListQuery, name: "start" | "count"): number {
  const value = Number(query[name]);
  return Number.isInteger(value) && value >= 0 ? value : LIST_DEFAULTS[name];
}

export type Filters = Record<FilterParam, string>;

export function filtersOf(query: ListQuery): Filters {
  return Object.fromEntries(FILTER_PARAMS.map((name) => [name, query[name] ?? ""])) as Filters;
}
