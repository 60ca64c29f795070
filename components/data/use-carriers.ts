"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useAccountApi } from "@/components/portal/portal-context";
import { apiCall } from "@/components/ui/api-client";
import { keys } from "@/components/ui/query-keys";
import type { ConnectionType } from "@/lib/carriers/connections/connection-kinds";
import type { ConnectionView } from "@/lib/carriers/connections/manage-connections";
import type { HeldAtProvider } from "@/lib/carriers/connections/provider-numbers";
import type { AvailableNumber } from "@/lib/carriers/http/provider";
import type { MutationCallbacks } from "./mutation-callbacks";

// The account's carrier connections (admin API …/carriers): the list, adding, changing, testing and removing one,
// and the numbers at a connection's provider. A change to connections reads the list again; importing or buying a
// number changes the Numbers page's list too.

/** The carriers' query keys, one family: every change here invalidates `carrierKeys.all`. */
export const carrierKeys = {
  all: ["carriers"] as const,
  list: ["carriers", "list"] as const,
  providerNumbers: (id: string) => ["carriers", "provider-numbers", id] as const,
};

export interface CarrierInput {
  type: ConnectionType;
  name: string;
  enabled?: boolean;
  fields: Record<string, string>;
}

export interface CarrierChange {
  name?: string;
  enabled?: boolean;
  fields?: Record<string, string>;
}

const path = (id: string, rest = "") => `/carriers/${encodeURIComponent(id)}${rest}`;

export function useCarriers(initial: ConnectionView[], refetchInterval: number) {
  const api = useAccountApi();
  return useQuery({
    queryKey: carrierKeys.list,
    queryFn: ({ signal }) => apiCall<{ carriers: ConnectionView[] }>(api("/carriers"), { signal }),
    initialData: { carriers: initial },
    select: (data) => data.carriers,
    refetchInterval,
  });
}

export function useAddCarrier(options: MutationCallbacks<{ carrier: ConnectionView }, CarrierInput>) {
  const api = useAccountApi();
  const cache = useQueryClient();
  return useMutation({
    ...options,
    mutationFn: (input: CarrierInput) =>
      apiCall<{ carrier: ConnectionView }>(api("/carriers"), { method: "POST", body: input }),
    onSuccess: async (...args) => {
      await cache.invalidateQueries({ queryKey: carrierKeys.all });
      await options.onSuccess?.(...args);
    },
  });
}

export function useUpdateCarrier(id: string, options: MutationCallbacks<{ carrier: ConnectionView }, CarrierChange>) {
  const api = useAccountApi();
  const cache = useQueryClient();
  return useMutation({
    ...options,
    mutationFn: (change: CarrierChange) =>
      apiCall<{ carrier: ConnectionView }>(api(path(id)), { method: "PATCH", body: change }),
    onSuccess: async (...args) => {
      await cache.invalidateQueries({ queryKey: carrierKeys.all });
      // A renamed connection is shown by its new name beside its numbers.
      await cache.invalidateQueries({ queryKey: keys.numbers.all });
      await options.onSuccess?.(...args);
    },
  });
}

export function useRemoveCarrier(options: MutationCallbacks<unknown, ConnectionView>) {
  const api = useAccountApi();
  const cache = useQueryClient();
  return useMutation({
    ...options,
    mutationFn: (connection: ConnectionView) => apiCall(api(path(connection.id)), { method: "DELETE" }),
    onSuccess: async (...args) => {
      await cache.invalidateQueries({ queryKey: carrierKeys.all });
      await options.onSuccess?.(...args);
    },
  });
}

/** "Test": the provider's own answer in words; the worker's state may have moved too, so the list is read again. */
export function useTestCarrier(id: string) {
  const api = useAccountApi();
  const cache = useQueryClient();
  return useMutation({
    mutationFn: () => apiCall<{ ok: boolean; words: string }>(api(path(id, "/test")), { method: "POST" }),
    onSettled: () => cache.invalidateQueries({ queryKey: carrierKeys.list }),
  });
}

/** The numbers the provider account holds, read only while the panel is open. */
export function useProviderNumbers(id: string, enabled: boolean) {
  const api = useAccountApi();
  return useQuery({
    queryKey: carrierKeys.providerNumbers(id),
    queryFn: ({ signal }) => apiCall<{ numbers: HeldAtProvider[] }>(api(path(id, "/numbers")), { signal }),
    select: (data) => data.numbers,
    enabled,
    retry: false,
  });
}

export interface ImportResult {
  imported: string[];
  skipped: { number: string; why: string }[];
}

export function useImportNumbers(id: string, options: MutationCallbacks<ImportResult, string[]> = {}) {
  const api = useAccountApi();
  const cache = useQueryClient();
  return useMutation({
    ...options,
    mutationFn: (numbers: string[]) =>
      apiCall<ImportResult>(api(path(id, "/numbers")), { method: "POST", body: { numbers } }),
    onSettled: async (...args) => {
      await Promise.all([
        cache.invalidateQueries({ queryKey: carrierKeys.all }),
        cache.invalidateQueries({ queryKey: keys.numbers.all }),
      ]);
      await options.onSettled?.(...args);
    },
  });
}

/** A search of the numbers the provider offers (a mutation: it runs when the admin presses Search). */
export function useSearchNumbers(id: string) {
  const api = useAccountApi();
  return useMutation({
    mutationFn: (query: { country: string; areaCode: string }) =>
      apiCall<{ numbers: AvailableNumber[] }>(api(path(id, "/numbers/search")), { query }).then((d) => d.numbers),
  });
}

export function useBuyNumber(id: string, options: MutationCallbacks<unknown, string> = {}) {
  const api = useAccountApi();
  const cache = useQueryClient();
  return useMutation({
    ...options,
    mutationFn: (number: string) => apiCall(api(path(id, "/numbers/buy")), { method: "POST", body: { number } }),
    onSettled: async (...args) => {
      await Promise.all([
        cache.invalidateQueries({ queryKey: carrierKeys.all }),
        cache.invalidateQueries({ queryKey: keys.numbers.all }),
      ]);
      await options.onSettled?.(...args);
    },
  });
}
