"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useAccountApi } from "@/components/portal/portal-context";
import { apiCall } from "@/components/ui/api-client";
import { usePagedQuery } from "@/components/ui/paged-list";
import { keys } from "@/components/ui/query-keys";
import type { PortalNumber, ProvisionNumberInput, UpdateNumberInput } from "@/lib/numbers/number-schema";
import type { MutationCallbacks } from "./mutation-callbacks";

// The account's numbers: the list, provisioning, editing and releasing one. Every change reads the list again.

export interface NumbersPage {
  numbers: PortalNumber[];
  total: number;
  start: number;
  count: number;
}

export function useNumbers(page: { start: number; count: number }, initial: NumbersPage, refetchInterval: number) {
  const api = useAccountApi();
  return usePagedQuery({
    queryKey: keys.numbers.list(page),
    path: api("/numbers"),
    query: page,
    initial,
    isFirstPage: page.start === 0,
    refetchInterval,
  });
}

export function useAddNumber(options: MutationCallbacks<{ number: PortalNumber; created: boolean }, ProvisionNumberInput>) {
  const api = useAccountApi();
  const cache = useQueryClient();
  return useMutation({
    ...options,
    mutationFn: (input: ProvisionNumberInput) =>
      apiCall<{ number: PortalNumber; created: boolean }>(api("/numbers"), { method: "POST", body: input }),
    onSuccess: async (...args) => {
      await options.onSuccess?.(...args);
      await cache.invalidateQueries({ queryKey: keys.numbers.all });
    },
  });
}

/** Saves a number's label and rate; the list is read again before the screen hears of it. */
export function useUpdateNumber(number: string, options: MutationCallbacks<unknown, UpdateNumberInput>) {
  const api = useAccountApi();
  const cache = useQueryClient();
  return useMutation({
    ...options,
    mutationFn: (input: UpdateNumberInput) =>
      apiCall(api(`/numbers/${encodeURIComponent(number)}`), { method: "PATCH", body: input }),
    onSuccess: async (...args) => {
      await cache.invalidateQueries({ queryKey: keys.numbers.all });
      await options.onSuccess?.(...args);
    },
  });
}

export function useReleaseNumber(options: MutationCallbacks<{ number: string; cancelledMessages: number }, PortalNumber>) {
  const api = useAccountApi();
  const cache = useQueryClient();
  return useMutation({
    ...options,
    mutationFn: (row: PortalNumber) =>
      apiCall<{ number: string; cancelledMessages: number }>(api(`/numbers/${encodeURIComponent(row.number)}`), {
        method: "DELETE",
      }),
    onSettled: async (...args) => {
      await options.onSettled?.(...args);
      await cache.invalidateQueries({ queryKey: keys.numbers.all });
    },
  });
}
