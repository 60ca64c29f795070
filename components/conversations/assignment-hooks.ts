"use client";

import { useQuery, useQueryClient, type QueryClient } from "@tanstack/react-query";
import { useAccountApi } from "@/components/portal/portal-context";
import { apiCall } from "@/components/ui/api-client";
import { keys } from "@/components/ui/query-keys";
import type { ConversationUpdate, MessageChange } from "@/lib/realtime/change-schema";
import type { ThreadData } from "./thread-types";

// The inbox's server traffic: the staff a conversation can go to, assigning and resolving. Answers and live
// "conversation.update" events go through applyConversationUpdate, so both paths write the cache the same way.

export interface StaffMember {
  id: string;
  name: string;
  role: "admin" | "agent";
}

const staffKey = ["conversations", "staff"] as const;

export function useStaff() {
  const api = useAccountApi();
  return useQuery({
    queryKey: staffKey,
    queryFn: async () => (await apiCall<{ staff: StaffMember[] }>(api("/conversations/staff"))).staff,
    staleTime: 60_000,
  });
}

/** Puts a conversation's new status and assignee into its cached thread (and its activity line), and has the
 * lists read again (their views and counts changed). Idempotent: an update seen twice changes nothing more. */
export function applyConversationUpdate(cache: QueryClient, update: ConversationUpdate): void {
  cache.setQueryData<ThreadData>(keys.conversations.thread(update.conversationId), (thread) => {
    if (!thread) return thread;
    const current = thread.activity ?? [];
    const activity =
      update.activity && !current.some((a) => a.id === update.activity!.id) ? [...current, update.activity] : current;
    return {
      ...thread,
      conversation: {
        ...thread.conversation,
        status: update.status,
        assigneeId: update.assigneeId,
        assigneeName: update.assigneeName,
        snoozedUntil: update.snoozedUntil,
      },
      activity,
    };
  });
  void cache.invalidateQueries({ queryKey: keys.conversations.lists });
}

/**
 * An inbound message into a thread the cache holds as resolved or snoozed reopened it on the server (which may not
 * have announced it: a worker or another process received it): read that thread again.
 */
export function refreshReopened(cache: QueryClient, change: MessageChange): void {
  if (change.message.direction !== "inbound") return;
  const key = keys.conversations.thread(change.conversationId);
  const thread = cache.getQueryData<ThreadData>(key);
  if (thread && (thread.conversation.status === "resolved" || thread.conversation.snoozedUntil))
    void cache.invalidateQueries({ queryKey: key });
}

/** Assign, unassign, resolve, reopen and snooze one conversation; each answer updates the cache at once. */
export function useConversationActions(conversationId: string) {
  const api = useAccountApi();
  const cache = useQueryClient();
  const base = api(`/conversations/${encodeURIComponent(conversationId)}`);
  const run = async (path: string, body: unknown, method: "PATCH" | "POST" = "PATCH") => {
    const update = await apiCall<ConversationUpdate>(`${base}${path}`, { method, body });
    applyConversationUpdate(cache, update);
  };
  return {
    assign: (assigneeId: string | null) => run("/assignee", { assigneeId }),
    setStatus: (status: "open" | "resolved") => run("/status", { status }),
    snooze: (until: Date) => run("/snooze", { until: until.toISOString() }, "POST"),
  };
}
