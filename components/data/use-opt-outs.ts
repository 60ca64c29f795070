"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useAccountApi } from "@/components/portal/portal-context";
import { apiCall, withQuery, type Query } from "@/components/ui/api-client";
import { usePagedQuery } from "@/components/ui/paged-list";
import { keys } from "@/components/ui/query-keys";
import type { listOptStates, OptEventResult } from "@/lib/opt/manage-opt";
import type { getOptSettings } from "@/lib/opt/opt-settings";
import type { OptChangeInput, OptSettingsInput } from "@/lib/opt/opt-schemas";
import type { MutationCallbacks } from "./mutation-callbacks";

// The pages and settings of the opt-out screen, as the server renders them first and these hooks fetch them after.
export type OptSettings = Awaited<ReturnType<typeof getOptSettings>>;
export type OptedOutPage = Awaited<ReturnType<typeof listOptStates>>;
export interface TrailPage {
  total: number;
  start: number;
  count: number;
  events: OptEventResult[];
}

// Opt-outs: the numbers opted out now, the trail of changes (and its CSV), an admin's change of one number, and
// the keyword replies.

export function useOptedOut(query: Query, initial: OptedOutPage, isFirstPage: boolean) {
  const api = useAccountApi();
  return usePagedQuery({ queryKey: keys.opt.numbers(query), path: api("/opt/numbers"), query, initial, isFirstPage });
}

export function useOptTrail(query: Query, initial: TrailPage, isFirstPage: boolean, enabled: boolean) {
  const api = useAccountApi();
  return usePagedQuery({
    queryKey: keys.opt.events(query),
    path: api("/opt/events"),
    query,
    initial,
    isFirstPage,
    enabled,
  });
}

/** The link to the whole filtered trail as CSV, not just the page shown. */
export function useOptTrailCsv(query: Query): string {
  return withQuery(useAccountApi()("/opt/events"), { ...query, start: undefined, count: undefined, format: "csv" });
}

/** An admin opts a number out or back in; everything of opt-outs is read again. */
export function useChangeOpt(options: MutationCallbacks<{ event: OptEventResult }, OptChangeInput>) {
  const api = useAccountApi();
  const cache = useQueryClient();
  return useMutation({
    ...options,
    mutationFn: (body: OptChangeInput) =>
      apiCall<{ event: OptEventResult }>(api("/opt/numbers"), { method: "POST", body }),
    onSuccess: async (...args) => {
      await options.onSuccess?.(...args);
      void cache.invalidateQueries({ queryKey: keys.opt.all });
    },
  });
}

/** Saves the keyword replies; the cache keeps what the server answered. */
export function useSaveKeywordReplies(options: MutationCallbacks<{ settings: OptSettings }, OptSettingsInput>) {
  const api = useAccountApi();
  const cache = useQueryClient();
  return useMutation({
    ...options,
    mutationFn: (body: OptSettingsInput) =>
      apiCall<{ settings: OptSettings }>(api("/opt/settings"), { method: "PUT", body }),
    onSuccess: async (...args) => {
      await options.onSuccess?.(...args);
      cache.setQueryData(keys.opt.settings, { settings: args[0].settings });
    },
  });
}
