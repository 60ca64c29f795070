"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useAccountApi } from "@/components/portal/portal-context";
import { apiCall } from "@/components/ui/api-client";
import { usePagedQuery } from "@/components/ui/paged-list";
import { keys } from "@/components/ui/query-keys";
import type { ApiKeyListing, CreatedKey, KeyPage } from "@/components/keys/key-types";
import type { MutationCallbacks } from "./mutation-callbacks";

// The account's API keys: the list, creating and revoking one. Each change is in the audit trail too, so both
// lists are read again after it, whatever the answer.

export function useKeys(page: { start: number; count: number }, initial: KeyPage) {
  const api = useAccountApi();
  return usePagedQuery({
    queryKey: keys.apiKeys.list(page),
    path: api("/keys"),
    query: page,
    initial,
    isFirstPage: page.start === 0,
  });
}

function useRefreshKeys() {
  const cache = useQueryClient();
  return () =>
    Promise.all([
      cache.invalidateQueries({ queryKey: keys.apiKeys.all }),
      cache.invalidateQueries({ queryKey: keys.audit.all }),
    ]);
}

export function useCreateKey(options: MutationCallbacks<CreatedKey, { name: string; expiresAt?: string }>) {
  const api = useAccountApi();
  const refresh = useRefreshKeys();
  return useMutation({
    ...options,
    mutationFn: (body: { name: string; expiresAt?: string }) =>
      apiCall<CreatedKey>(api("/keys"), { method: "POST", body }),
    onSettled: async (...args) => {
      await options.onSettled?.(...args);
      await refresh();
    },
  });
}

export function useRevokeKey(options: MutationCallbacks<{ key: ApiKeyListing }, ApiKeyListing>) {
  const api = useAccountApi();
  const refresh = useRefreshKeys();
  return useMutation({
    ...options,
    mutationFn: (key: ApiKeyListing) =>
      apiCall<{ key: ApiKeyListing }>(api(`/keys/${encodeURIComponent(key.id)}`), { method: "DELETE" }),
    onSettled: async (...args) => {
      await options.onSettled?.(...args);
      await refresh();
    },
  });
}
