"use client";

import { useEffect, useState } from "react";
import { useQueryClient } from "@tanstack/react-query";
import { io } from "socket.io-client";
import { useViewer } from "@/components/portal/portal-context";
import { CONTACTS_EVENT, NOTE_EVENT, noteChangeSchema } from "@/lib/realtime/change-schema";
import { keys } from "@/components/ui/query-keys";
import { contactKeys } from "@/components/contacts/use-contacts";
import { addNoteToThread, mentionKeys, useMentions } from "./note-data";

/**
 * New internal notes, live on every portal page: each goes into its thread if that thread is cached (open), and a
 * note mentioning the viewer refreshes their badge and, if they allowed it, shows a browser notification. Contacts
 * another staff member changed are read again, with everything that shows their names.
 */
export function useNotesLive(): void {
  const cache = useQueryClient();
  const viewer = useViewer();
  useEffect(() => {
    const socket = io({ path: "/socket.io", transports: ["websocket", "polling"], withCredentials: true });
    socket.on(NOTE_EVENT, (raw: unknown) => {
      const parsed = noteChangeSchema.safeParse(raw);
      if (!parsed.success) return;
      const { note } = parsed.data;
      addNoteToThread(cache, note);
      if (!note.mentions.some((m) => m.id === viewer.userId)) return;
      void cache.invalidateQueries({ queryKey: mentionKeys.all });
      if (typeof Notification !== "undefined" && Notification.permission === "granted") {
        const shown = new Notification(`${note.authorName} mentioned you`, { body: note.body, tag: note.id });
        shown.onclick = () => {
          window.focus();
          window.location.assign(`/conversations/${encodeURIComponent(note.conversationId)}`);
        };
      }
    });
    socket.on(CONTACTS_EVENT, () => {
      void cache.invalidateQueries({ queryKey: contactKeys.all });
      void cache.invalidateQueries({ queryKey: keys.conversations.all });
      void cache.invalidateQueries({ queryKey: keys.messages.all });
    });
    return () => {
      socket.disconnect();
    };
  }, [cache, viewer.userId]);
}

/** The count of the viewer's unread mentions, beside the Conversations link. */
export function MentionBadge() {
  useNotesLive();
  const mentions = useMentions();
  const count = mentions.data?.count ?? 0;
  if (count === 0) return null;
  return (
    <span
      data-testid="mention-badge"
      title={`${count} unread mention${count === 1 ? "" : "s"}`}
      className="ml-2 inline-flex min-w-5 items-center justify-center rounded-full bg-amber-400 px-1.5 text-xs font-semibold text-slate-900"
    >
      <span aria-hidden="true">@{count}</span>
      <span className="sr-only">
        , {count} unread mention{count === 1 ? "" : "s"}
      </span>
    </span>
  );
}

/** Asks for browser notifications on a click (never on load); hidden once answered or where there are none. */
export function EnableNotificationsButton() {
  const [permission, setPermission] = useState<NotificationPermission | "unsupported" | null>(null);
  useEffect(() => {
    setPermission(typeof Notification === "undefined" ? "unsupported" : Notification.permission);
  }, []);
  if (permission !== "default") return null;
  return (
    <button
      type="button"
      onClick={() => void Notification.requestPermission().then(setPermission)}
      className="mt-2 block rounded px-0 text-xs text-gray-300 underline hover:text-white"
    >
      Enable notifications
    </button>
  );
}
