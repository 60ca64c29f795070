"use client";

import { keepPreviousData, useQuery, type QueryKey } from "@tanstack/react-query";
import { useState } from "react";
import { apiCall, type Query } from "./api-client";

/**
 * One page of a portal list: the server's first page as initial data (no fetch on first paint), the previous page
 * kept on screen while the next loads, the same `query` object as key and query string.
 */
export function usePagedQuery<T>({
  queryKey,
  path,
  query,
  initial,
  isFirstPage,
  enabled,
  refetchInterval,
}: {
  queryKey: QueryKey;
  /** The account route, as useAccountApi() builds it. */
  path: string;
  query: Query;
  /** The first page the server rendered with; used only while `isFirstPage`. */
  initial: T;
  isFirstPage: boolean;
  enabled?: boolean;
  refetchInterval?: number;
}) {
  return useQuery({
    queryKey,
    queryFn: ({ signal }) => apiCall<T>(path, { query, signal }),
    initialData: isFirstPage ? initial : undefined,
    placeholderData: keepPreviousData,
    enabled,
    refetchInterval,
  });
}

/**
 * A list's filter values and its page start: changing a filter goes back to the first page. `empty` is the
 * unfiltered state, a constant of the caller's module: until a filter changes, `filters` is that very object.
 */
export function useListFilters<F extends Record<keyof F, string>>(empty: F) {
  const [filters, setFilters] = useState(empty);
  const [start, setStart] = useState(0);
  const set = (name: keyof F) => (value: string) => {
    setFilters((f) => ({ ...f, [name]: value }));
    setStart(0);
  };
  return {
    filters,
    set,
    start,
    setStart,
    /** No filter touched and the first page: the page the server rendered. */
    isFirstPage: filters === empty && start === 0,
    filtered: Object.values(filters).some(Boolean),
  };
}
