"use client";

import { useEffect, useMemo } from "react";
import { useMutation, useQuery, useQueryClient, type QueryClient } from "@tanstack/react-query";
import { useAccountApi } from "@/components/portal/portal-context";
import { apiCall } from "@/components/ui/api-client";
import { keys } from "@/components/ui/query-keys";
import type { MentionView, NoteView } from "@/lib/notes/note-schema";
import type { ThreadData } from "./thread-types";

// Internal notes in the browser: adding one, putting one (ours or a live one) into the cached thread, and the
// viewer's unread mentions (the sidebar's badge).

export const mentionKeys = { all: ["mentions"] as const };

/** Puts a note into its cached thread, once (our own answer and the live event both bring it). */
export function addNoteToThread(cache: QueryClient, note: NoteView): void {
  cache.setQueryData<ThreadData>(keys.conversations.thread(note.conversationId), (thread) => {
    if (!thread) return thread;
    const notes = thread.notes ?? [];
    if (notes.some((n) => n.id === note.id)) return thread;
    return { ...thread, notes: [...notes, note] };
  });
}

export function useAddNote(conversationId: string) {
  const api = useAccountApi();
  const cache = useQueryClient();
  return useMutation({
    mutationFn: (body: string) =>
      apiCall<{ note: NoteView }>(api(`/conversations/${encodeURIComponent(conversationId)}/notes`), {
        method: "POST",
        body: { body },
      }).then((d) => d.note),
    onSuccess: (note) => addNoteToThread(cache, note),
  });
}

export function useMentions() {
  const api = useAccountApi();
  return useQuery({
    queryKey: mentionKeys.all,
    queryFn: ({ signal }) => apiCall<{ count: number; mentions: MentionView[] }>(api("/mentions"), { signal }),
    refetchInterval: 60_000,
  });
}

/** While a thread is open, the viewer's mentions in it are read (again when a new note arrives). */
export function useMarkMentionsRead(conversationId: string, notes: NoteView[] | undefined, viewerId: string) {
  const api = useAccountApi();
  const cache = useQueryClient();
  const mentionsMe = useMemo(
    () => (notes ?? []).filter((n) => n.mentions.some((m) => m.id === viewerId)).length,
    [notes, viewerId],
  );
  useEffect(() => {
    if (mentionsMe === 0 || document.visibilityState === "hidden") return;
    apiCall(api("/mentions/read"), { method: "POST", body: { conversationId } })
      .then(() => cache.invalidateQueries({ queryKey: mentionKeys.all }))
      .catch(() => {});
  }, [api, cache, conversationId, mentionsMe]);
}
