"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useAccountApi } from "@/components/portal/portal-context";
import { apiCall, type Query } from "@/components/ui/api-client";
import { usePagedQuery } from "@/components/ui/paged-list";
import { keys } from "@/components/ui/query-keys";
import type { RevealedSecret, WebhookSettings } from "@/lib/webhooks/manage-webhook";
import type { TestEventResult } from "@/lib/webhooks/send-test-event";
import type { WebhookHealth } from "@/lib/webhooks/webhook-health";
import type { WebhookEventResult } from "@/lib/webhooks/webhook-log";
import type { MutationCallbacks } from "./mutation-callbacks";

/** A page of the delivery log, as the server renders it first and the hook fetches it after. */
export interface EventPage {
  events: WebhookEventResult[];
  total: number;
  start: number;
}

// The account's webhook: its settings and secrets, its health, the delivery log, a test event and resends. A change
// of the settings puts the server's answer in the cache and reads the rest of the webhook again.

export function useWebhookSettings(initial: WebhookSettings) {
  const api = useAccountApi();
  return useQuery({
    queryKey: keys.webhook.settings,
    queryFn: () => apiCall<{ webhook: WebhookSettings }>(api("/webhook")),
    initialData: { webhook: initial },
    select: (data) => data.webhook,
  });
}

export function useWebhookHealth(initial: WebhookHealth, refetchInterval: number) {
  const api = useAccountApi();
  return useQuery({
    queryKey: keys.webhook.health,
    queryFn: () => apiCall<{ health: WebhookHealth }>(api("/webhook/health")),
    initialData: { health: initial },
    select: (data) => data.health,
    refetchInterval,
  });
}

export function useDeliveryLog(
  query: Query,
  initial: EventPage,
  { isFirstPage, enabled, refetchInterval }: { isFirstPage: boolean; enabled: boolean; refetchInterval: number },
) {
  const api = useAccountApi();
  return usePagedQuery({
    queryKey: keys.webhook.events(query),
    path: api("/webhook/events"),
    query,
    initial,
    isFirstPage,
    enabled,
    refetchInterval,
  });
}

/** How many failed events were created in [since, until): the filter a range resend applies. */
export function useCountFailedEvents() {
  const api = useAccountApi();
  return async (range: { since: string; until: string }) =>
    (await apiCall<{ total: number }>(api("/webhook/events"), { query: { status: "failed", ...range, limit: 1 } }))
      .total;
}

/** Reads everything of the webhook again (the log's Refresh button). */
export function useRefreshWebhook() {
  const cache = useQueryClient();
  return () => cache.invalidateQueries({ queryKey: keys.webhook.all });
}

/** The new settings from the server go to the cache first, then the rest of the webhook is read again. */
function useSettingsMutation<TVariables>(
  mutationFn: (variables: TVariables) => Promise<{ webhook: WebhookSettings }>,
  options: MutationCallbacks<{ webhook: WebhookSettings }, TVariables>,
) {
  const cache = useQueryClient();
  return useMutation({
    ...options,
    mutationFn,
    onSuccess: async (...args) => {
      cache.setQueryData(keys.webhook.settings, { webhook: args[0].webhook });
      void cache.invalidateQueries({ queryKey: keys.webhook.all });
      await options.onSuccess?.(...args);
    },
  });
}

export type WebhookEndpointInput = { url: string; headerName: string | null; headerValue?: string };

export function useSaveWebhook(options: MutationCallbacks<{ webhook: WebhookSettings }, WebhookEndpointInput>) {
  const api = useAccountApi();
  return useSettingsMutation(
    (body: WebhookEndpointInput) => apiCall<{ webhook: WebhookSettings }>(api("/webhook"), { method: "PUT", body }),
    options,
  );
}

export function useRemoveWebhook(options: MutationCallbacks<{ webhook: WebhookSettings }, void>) {
  const api = useAccountApi();
  return useSettingsMutation(
    () => apiCall<{ webhook: WebhookSettings }>(api("/webhook"), { method: "DELETE" }),
    options,
  );
}

/** A new signing secret; the current one keeps signing beside it for `overlapHours`. */
export function useRotateSecret(overlapHours: number, options: MutationCallbacks<{ webhook: WebhookSettings }, void>) {
  const api = useAccountApi();
  return useSettingsMutation(
    () =>
      apiCall<{ webhook: WebhookSettings }>(api("/webhook/rotate-secret"), {
        method: "POST",
        query: { overlapHours },
      }),
    options,
  );
}

/** A secret in full, fetched only when an admin asks (audited), never cached. */
export function useRevealSecret(secretId: string, options: MutationCallbacks<{ secret: RevealedSecret }, void>) {
  const api = useAccountApi();
  return useMutation({
    ...options,
    mutationFn: () =>
      apiCall<{ secret: RevealedSecret }>(api(`/webhook/secrets/${encodeURIComponent(secretId)}/reveal`), {
        method: "POST",
      }),
  });
}

export function useSendTestEvent() {
  const api = useAccountApi();
  const refresh = useRefreshWebhook();
  return useMutation({
    mutationFn: () => apiCall<{ test: TestEventResult }>(api("/webhook/test"), { method: "POST" }),
    onSettled: () => void refresh(),
  });
}

/** Sends one event again, or every failed one created in a range. */
export function useResendEvents<TInput extends { eventId: string } | { since: string; until: string }>(
  options: MutationCallbacks<{ resent: number }, TInput> = {},
) {
  const api = useAccountApi();
  const refresh = useRefreshWebhook();
  return useMutation({
    ...options,
    mutationFn: (body: TInput) => apiCall<{ resent: number }>(api("/webhook/resend"), { method: "POST", body }),
    onSuccess: async (...args) => {
      await options.onSuccess?.(...args);
      void refresh();
    },
  });
}
