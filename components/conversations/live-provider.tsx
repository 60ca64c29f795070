"use client";

import { createContext, useContext, useEffect, useRef, useState, type ReactNode } from "react";
import { useQueryClient } from "@tanstack/react-query";
import { io, type Socket } from "socket.io-client";
import { keys } from "@/components/ui/query-keys";
import {
  catchUpSchema,
  messageChangeSchema,
  readChangeSchema,
  SOCKET_EVENTS,
  CONVERSATION_UPDATE_EVENT,
  conversationUpdateSchema,
  type MessageChange,
} from "@/lib/realtime/change-schema";
import { applyChange, fromServer } from "./apply-change";
import { applyConversationUpdate, refreshReopened } from "./assignment-hooks";
import { notifyInbound } from "./message-notifications";

interface Live {
  connected: boolean;
  /** The live socket (null before it is made): views that say something to the server (presence) use it. */
  socket: Socket | null;
  /** The signed-in staff member. */
  userId: string;
}

const Context = createContext<Live>({ connected: false, socket: null, userId: "" });

export function useLive(): Live {
  return useContext(Context);
}

/**
 * The socket of the live views (the conversation list and threads, the phone simulator's open phones: the reducer
 * puts each change in every cached view it belongs to). Every change has a position (the
 * account's log of changes); the provider keeps the last one it applied and, after any disconnect (network drop,
 * server restart, laptop asleep), asks for everything after it and applies it through the same reducer as live
 * events. A gap too old to replay refetches everything instead.
 */
export function LiveProvider({
  initialPosition,
  userId = "",
  children,
}: {
  initialPosition: number;
  userId?: string;
  children: ReactNode;
}) {
  const cache = useQueryClient();
  const [connected, setConnected] = useState(true);
  const [liveSocket, setLiveSocket] = useState<Socket | null>(null);
  const position = useRef(initialPosition);

  useEffect(() => {
    let listTimer: ReturnType<typeof setTimeout> | null = null;
    const listStale = () => {
      if (listTimer) return;
      listTimer = setTimeout(() => {
        listTimer = null;
        void cache.invalidateQueries({ queryKey: keys.conversations.lists });
      }, 150);
    };
    const apply = (changes: MessageChange[]) => {
      for (const change of changes) {
        applyChange(cache, fromServer(change), listStale);
        refreshReopened(cache, change);
        if (change.position > position.current) position.current = change.position;
      }
    };
    const socket = io({ path: "/socket.io", transports: ["websocket", "polling"], withCredentials: true });
    setLiveSocket(socket);
    let catchingUp = false;
    const catchUp = () => {
      if (catchingUp) return;
      catchingUp = true;
      socket
        .timeout(15_000)
        .emitWithAck(SOCKET_EVENTS.catchUp, { after: position.current })
        .then((raw: unknown) => {
          const answer = catchUpSchema.safeParse(raw);
          if (!answer.success) return;
          if (answer.data.tooOld) {
            // Too far behind to replay: read everything again.
            void cache.invalidateQueries({ queryKey: keys.conversations.all });
            void cache.invalidateQueries({ queryKey: keys.simulator.all });
          } else apply(answer.data.changes);
          if (answer.data.position > position.current) position.current = answer.data.position;
        })
        .catch(() => socket.disconnect().connect())
        .finally(() => (catchingUp = false));
    };
    socket.on("connect", () => {
      setConnected(true);
      // Also on the first connection: changes between the page's first paint and now. Messages replay from the
      // log; a conversation's status, assignee and snooze are not in it, so the open views read them again.
      catchUp();
      void cache.invalidateQueries({ queryKey: keys.conversations.all, refetchType: "active" });
    });
    socket.on("disconnect", () => setConnected(false));
    socket.on("connect_error", (error) => {
      setConnected(false);
      // The session ended: the next request goes to the sign-in page.
      if (error.message === "Unauthorized") void cache.invalidateQueries({ queryKey: keys.conversations.all });
    });
    // Messages already notified of (live only: a reconnect's catch-up notifies nothing).
    const notified = new Set<string>();
    socket.on(SOCKET_EVENTS.change, (raw: unknown) => {
      const parsed = messageChangeSchema.array().safeParse(raw);
      if (!parsed.success) return;
      notifyInbound(cache, parsed.data, userId, notified);
      apply(parsed.data);
      if (notified.size > 5_000) notified.clear();
    });
    socket.on(CONVERSATION_UPDATE_EVENT, (raw: unknown) => {
      const parsed = conversationUpdateSchema.safeParse(raw);
      if (parsed.success) applyConversationUpdate(cache, parsed.data);
    });
    socket.on(SOCKET_EVENTS.read, (raw: unknown) => {
      if (readChangeSchema.safeParse(raw).success) listStale();
    });
    return () => {
      if (listTimer) clearTimeout(listTimer);
      socket.disconnect();
      setLiveSocket(null);
    };
  }, [cache, userId]);

  return (
    <Context.Provider value={{ connected, socket: liveSocket, userId }}>
      {children}
      {!connected && (
        <div
          role="status"
          className="fixed right-4 bottom-4 z-50 rounded-full bg-amber-500 px-4 py-1.5 text-sm font-medium text-white shadow-lg"
        >
          Reconnecting…
        </div>
      )}
    </Context.Provider>
  );
}
