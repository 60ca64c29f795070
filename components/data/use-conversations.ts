"use client";

import { useMemo } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useAccountApi, useViewer } from "@/components/portal/portal-context";
import { apiCall, failureText, type Query } from "@/components/ui/api-client";
import { usePagedQuery } from "@/components/ui/paged-list";
import { keys } from "@/components/ui/query-keys";
import { applyChange, keepPending } from "@/components/conversations/apply-change";
import {
  PENDING_PREFIX,
  PENDING_STATUS,
  type ConversationList,
  type ThreadData,
} from "@/components/conversations/thread-types";
import type { ReplyInput } from "@/lib/conversations/conversation-schema";
import type { MessageInfo } from "@/lib/messaging/send-message";

// The conversations' server traffic: the list, one thread, read markers and replies. Replies go through the live
// view's reducer (applyChange) like every other change of a thread.

/** One page of the conversation list; the server's first page while nothing was changed. */
export function useConversations(filters: Query, initial: ConversationList, isFirstPage: boolean) {
  const api = useAccountApi();
  return usePagedQuery({
    queryKey: keys.conversations.list(filters),
    path: api("/conversations"),
    query: filters,
    initial,
    isFirstPage,
  });
}

/** One thread, kept by the live feed; a read of it keeps the bubbles the server does not know yet. */
export function useThread(initial: ThreadData) {
  const api = useAccountApi();
  const cache = useQueryClient();
  const id = initial.conversation.id;
  const key = keys.conversations.thread(id);
  return useQuery({
    queryKey: key,
    queryFn: async () =>
      keepPending(
        await apiCall<ThreadData>(api(`/conversations/${encodeURIComponent(id)}`)),
        cache.getQueryData<ThreadData>(key),
      ),
    initialData: initial,
  });
}

/**
 * Reads the page of messages before the oldest the thread shows (staff scrolling up) into the thread's cache.
 * One read at a time; the live feed and refetches keep what was read (keepPending keeps the thread's messages).
 */
export function useOlderMessages(conversationId: string) {
  const api = useAccountApi();
  const cache = useQueryClient();
  const key = keys.conversations.thread(conversationId);
  return useMutation({
    mutationFn: async () => {
      const thread = cache.getQueryData<ThreadData>(key);
      const oldest = thread?.messages.find((m) => !m.id.startsWith(PENDING_PREFIX));
      if (!thread?.hasOlder || !oldest) return;
      const page = await apiCall<{ messages: ThreadData["messages"]; hasOlder: boolean }>(
        api(`/conversations/${encodeURIComponent(conversationId)}/messages`),
        { query: { before: oldest.id } },
      );
      cache.setQueryData<ThreadData>(key, (current) => {
        if (!current) return current;
        const known = new Set(current.messages.map((m) => m.id));
        return {
          ...current,
          messages: [...page.messages.filter((m) => !known.has(m.id)), ...current.messages],
          hasOlder: page.hasOlder,
        };
      });
    },
  });
}

/** Moves the viewer's read marker of a conversation; the list's unread counts are read again. */
export function useReadMarker(conversationId: string) {
  const path = useAccountApi()(`/conversations/${encodeURIComponent(conversationId)}/read`);
  const cache = useQueryClient();
  // Stable for one conversation, so that an effect marking it read runs when the thread changes, not every render.
  return useMemo(() => {
    const mark = async (read: boolean) => {
      await apiCall(path, { method: "POST", body: { read } });
      await cache.invalidateQueries({ queryKey: keys.conversations.lists });
    };
    return { markRead: () => mark(true), markUnread: () => mark(false) };
  }, [cache, path]);
}

/** What the composer knows of the reply beyond its input: how it will be split, for the bubble. */
export interface ReplyShape {
  numSegments: number;
  encoding: string;
}

/**
 * Sends a reply as the viewer. The bubble appears at once under its client id (sent as the message's referenceId,
 * so the live echo replaces it instead of doubling it); the server's answer gives it its id; a refusal keeps it,
 * marked failed, with the reason. All three are changes for the reducer.
 */
export function useSendReply(conversationId: string) {
  const api = useAccountApi();
  const viewer = useViewer();
  const cache = useQueryClient();
  return async (input: ReplyInput, shape: ReplyShape) => {
    const { clientId } = input;
    const now = new Date().toISOString();
    applyChange(cache, {
      kind: "pending",
      message: {
        id: PENDING_PREFIX + clientId,
        conversationId,
        direction: "outbound",
        body: input.body,
        media: input.media,
        status: PENDING_STATUS,
        reason: "",
        numSegments: shape.numSegments,
        encoding: shape.encoding,
        automated: false,
        userId: viewer.userId,
        userType: "agent",
        senderName: viewer.name || viewer.email,
        referenceId: clientId,
        createdAt: now,
        updatedAt: now,
      },
    });
    try {
      const { message } = await apiCall<{ message: MessageInfo }>(
        api(`/conversations/${encodeURIComponent(conversationId)}/messages`),
        { method: "POST", body: input },
      );
      applyChange(cache, { kind: "answered", conversationId, clientId, message });
    } catch (failure) {
      applyChange(cache, { kind: "refused", conversationId, clientId, reason: failureText(failure) });
    }
  };
}
