"use client";

import { useCallback, useEffect, useRef, useState, type FormEvent } from "react";
import {
  PRESENCE_EVENTS,
  presenceUpdateSchema,
  TYPING_REPEAT_MS,
  TYPING_TTL_MS,
  type PresenceViewer,
} from "@/lib/realtime/presence-schema";
import { useLive } from "./live-provider";

// A staff member who stops pressing keys for this long has stopped typing.
const IDLE_MS = 4_000;

interface Seen extends PresenceViewer {
  /** When "typing" was last heard of: it lapses TYPING_TTL_MS later unless said again. */
  heardAt: number;
}

/**
 * Presence in one conversation: tells the server this tab shows it (again after every reconnect), hears who else
 * does, and gives the composer's wrapper the handlers that say when this staff member types. Other staff only:
 * the viewer's own other tabs are not listed.
 */
export function usePresence(conversationId: string) {
  const { socket, userId } = useLive();
  const [others, setOthers] = useState<Seen[]>([]);
  const [now, setNow] = useState(() => Date.now());
  const typingSent = useRef(0);
  const idle = useRef<ReturnType<typeof setTimeout> | null>(null);

  useEffect(() => {
    if (!socket) return;
    const view = () => socket.emit(PRESENCE_EVENTS.view, { conversationId });
    const onUpdate = (raw: unknown) => {
      const parsed = presenceUpdateSchema.safeParse(raw);
      if (!parsed.success || parsed.data.conversationId !== conversationId) return;
      const at = Date.now();
      setNow(at);
      setOthers(parsed.data.viewers.filter((v) => v.userId !== userId).map((v) => ({ ...v, heardAt: at })));
    };
    socket.on("connect", view);
    socket.on(PRESENCE_EVENTS.update, onUpdate);
    if (socket.connected) view();
    return () => {
      socket.off("connect", view);
      socket.off(PRESENCE_EVENTS.update, onUpdate);
      socket.emit(PRESENCE_EVENTS.view, { conversationId: null });
      setOthers([]);
    };
  }, [socket, conversationId, userId]);

  // Re-render when the next "typing" lapses.
  const nextLapse = Math.min(...others.filter((o) => o.typing).map((o) => o.heardAt + TYPING_TTL_MS));
  useEffect(() => {
    if (!Number.isFinite(nextLapse)) return;
    const timer = setTimeout(() => setNow(Date.now()), Math.max(0, nextLapse - Date.now()) + 50);
    return () => clearTimeout(timer);
  }, [nextLapse]);

  const sayTyping = useCallback(
    (typing: boolean) => {
      if (!socket?.connected) return;
      const at = Date.now();
      if (typing && at - typingSent.current < TYPING_REPEAT_MS) return;
      if (!typing && typingSent.current === 0) return;
      typingSent.current = typing ? at : 0;
      socket.emit(PRESENCE_EVENTS.typing, { conversationId, typing });
    },
    [socket, conversationId],
  );

  useEffect(
    () => () => {
      if (idle.current) clearTimeout(idle.current);
    },
    [],
  );

  const typingHandlers = {
    onInput: (event: FormEvent<HTMLElement>) => {
      const target = event.target as HTMLElement;
      if (!(target instanceof HTMLTextAreaElement) && !(target instanceof HTMLInputElement)) return;
      if (target.type === "file") return;
      if (idle.current) clearTimeout(idle.current);
      if (target.value.trim() === "") return sayTyping(false);
      sayTyping(true);
      idle.current = setTimeout(() => sayTyping(false), IDLE_MS);
    },
    onSubmitCapture: () => {
      if (idle.current) clearTimeout(idle.current);
      sayTyping(false);
    },
  };

  const viewers = others.map((o) => ({ ...o, typing: o.typing && now < o.heardAt + TYPING_TTL_MS }));
  return { viewers, typingHandlers };
}

function initials(name: string): string {
  const parts = name
    .replace(/@.*/, "")
    .split(/[\s._-]+/)
    .filter(Boolean);
  return (parts.length > 1 ? parts[0]![0]! + parts.at(-1)![0]! : (parts[0] ?? "?").slice(0, 2)).toUpperCase();
}

/** Who else is in the conversation, for its header: an avatar and "Ana is viewing" or "Ana is typing…". */
export function PresenceBar({ viewers }: { viewers: PresenceViewer[] }) {
  if (viewers.length === 0) return null;
  return (
    <ul aria-label="Also in this conversation" className="flex flex-wrap items-center gap-2" aria-live="polite">
      {viewers.map((v) => (
        <li key={v.userId} className="flex items-center gap-1.5 text-xs text-slate-600">
          <span
            aria-hidden="true"
            className="flex size-6 items-center justify-center rounded-full bg-indigo-100 text-[0.65rem] font-semibold text-indigo-800"
          >
            {initials(v.name)}
          </span>
          <span className={v.typing ? "font-medium text-indigo-800" : ""}>
            {v.typing ? `${v.name} is typing…` : `${v.name} is viewing`}
          </span>
        </li>
      ))}
    </ul>
  );
}
