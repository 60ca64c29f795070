"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useAccountApi } from "@/components/portal/portal-context";
import { apiCall } from "@/components/ui/api-client";
import type { CampaignAction, CampaignInput, CampaignView } from "@/lib/campaigns/campaign-schema";

// The campaigns' server traffic. A campaign on its way is read again every two seconds: its counts move as the
// worker sends and the receipts come back.

const LIVE_MS = 2_000;
export const campaignKeys = {
  all: ["campaigns"] as const,
  list: ["campaigns", "list"] as const,
  one: (id: string) => ["campaigns", "one", id] as const,
};

// Running or waiting for its time; or stopped with messages still with the carrier (their outcomes are on the way).
const moving = (c: CampaignView | undefined) =>
  c !== undefined && (c.status === "running" || c.status === "scheduled" || c.counts.sent > 0);

export function useCampaigns(initial: CampaignView[]) {
  const api = useAccountApi();
  return useQuery({
    queryKey: campaignKeys.list,
    queryFn: async ({ signal }) =>
      (await apiCall<{ campaigns: CampaignView[] }>(api("/campaigns"), { signal })).campaigns,
    initialData: initial,
    refetchInterval: (q) => (q.state.data?.some(moving) ? LIVE_MS : false),
  });
}

export function useCampaign(initial: CampaignView) {
  const api = useAccountApi();
  return useQuery({
    queryKey: campaignKeys.one(initial.id),
    queryFn: async ({ signal }) =>
      (await apiCall<{ campaign: CampaignView }>(api(`/campaigns/${encodeURIComponent(initial.id)}`), { signal }))
        .campaign,
    initialData: initial,
    refetchInterval: (q) => (moving(q.state.data) ? LIVE_MS : false),
  });
}

export function useCreateCampaign(options: {
  onSuccess: (campaign: CampaignView) => void;
  onError: (e: unknown) => void;
}) {
  const api = useAccountApi();
  const cache = useQueryClient();
  return useMutation({
    mutationFn: async (input: CampaignInput) =>
      (await apiCall<{ campaign: CampaignView }>(api("/campaigns"), { method: "POST", body: input })).campaign,
    onSuccess: async (campaign) => {
      await cache.invalidateQueries({ queryKey: campaignKeys.all });
      options.onSuccess(campaign);
    },
    onError: options.onError,
  });
}

export function useCampaignAction(id: string) {
  const api = useAccountApi();
  const cache = useQueryClient();
  return useMutation({
    mutationFn: async (action: CampaignAction) =>
      (
        await apiCall<{ campaign: CampaignView }>(api(`/campaigns/${encodeURIComponent(id)}/${action}`), {
          method: "POST",
          body: {},
        })
      ).campaign,
    onSuccess: (campaign) => {
      cache.setQueryData(campaignKeys.one(id), campaign);
      return cache.invalidateQueries({ queryKey: campaignKeys.list });
    },
  });
}
