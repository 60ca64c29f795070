"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useAccountApi } from "@/components/portal/portal-context";
import { apiCall } from "@/components/ui/api-client";
import type { MutationCallbacks } from "@/components/data/mutation-callbacks";
import type {
  CannedReplyView,
  CreateCannedReplyInput,
  UpdateCannedReplyInput,
} from "@/lib/canned-replies/canned-reply-schema";

// The viewer's canned replies (account-wide and their own): the page that manages them and the composer's picker
// share one cache entry; every change reads it again.

export const cannedReplyKeys = { all: ["cannedReplies"] as const };

export function useCannedReplies(options: { initial?: CannedReplyView[]; enabled?: boolean } = {}) {
  const api = useAccountApi();
  return useQuery({
    queryKey: cannedReplyKeys.all,
    queryFn: ({ signal }) =>
      apiCall<{ cannedReplies: CannedReplyView[] }>(api("/canned-replies"), { signal }).then((d) => d.cannedReplies),
    initialData: options.initial,
    enabled: options.enabled ?? true,
    staleTime: 30_000,
  });
}

function useInvalidate() {
  const cache = useQueryClient();
  return () => cache.invalidateQueries({ queryKey: cannedReplyKeys.all });
}

export function useCreateCannedReply(options: MutationCallbacks<CannedReplyView, CreateCannedReplyInput>) {
  const api = useAccountApi();
  const invalidate = useInvalidate();
  return useMutation({
    ...options,
    mutationFn: (input: CreateCannedReplyInput) =>
      apiCall<{ cannedReply: CannedReplyView }>(api("/canned-replies"), { method: "POST", body: input }).then(
        (d) => d.cannedReply,
      ),
    onSuccess: async (...args) => {
      await invalidate();
      await options.onSuccess?.(...args);
    },
  });
}

export function useUpdateCannedReply(id: string, options: MutationCallbacks<CannedReplyView, UpdateCannedReplyInput>) {
  const api = useAccountApi();
  const invalidate = useInvalidate();
  return useMutation({
    ...options,
    mutationFn: (input: UpdateCannedReplyInput) =>
      apiCall<{ cannedReply: CannedReplyView }>(api(`/canned-replies/${encodeURIComponent(id)}`), {
        method: "PATCH",
        body: input,
      }).then((d) => d.cannedReply),
    onSuccess: async (...args) => {
      await invalidate();
      await options.onSuccess?.(...args);
    },
  });
}

export function useDeleteCannedReply(options: MutationCallbacks<unknown, CannedReplyView>) {
  const api = useAccountApi();
  const invalidate = useInvalidate();
  return useMutation({
    ...options,
    mutationFn: (reply: CannedReplyView) =>
      apiCall(api(`/canned-replies/${encodeURIComponent(reply.id)}`), { method: "DELETE" }),
    onSettled: async (...args) => {
      await invalidate();
      await options.onSettled?.(...args);
    },
  });
}
