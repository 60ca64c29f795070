import type { Server, Socket } from "socket.io";
import { logger } from "../log";
import {
  PRESENCE_EVENTS,
  presenceTypingSchema,
  presenceUpdateSchema,
  presenceViewSchema,
  TYPING_TTL_MS,
  type PresenceViewer,
} from "./presence-schema";

// Presence: each socket that shows a conversation is in that conversation's room, and says in its own socket data
// who it is and until when it is typing. Whenever that changes, the server asks every server (fetchSockets goes
// through the socket.io adapter, so sockets of other processes answer too) who is in the room and tells the room.
// Nothing is stored: a server that stops takes its sockets' presence with it.

export interface PresenceData {
  userId: string;
  accountId: string;
  name: string;
  viewing?: string | null;
  typingUntil?: number;
}

export function conversationRoom(accountId: string, conversationId: string): string {
  return `conversation:${accountId}:${conversationId}`;
}

/** Everyone in the conversation's room on any server, one entry per staff member (typing if any of their tabs is). */
async function viewersOf(io: Server, accountId: string, conversationId: string): Promise<PresenceViewer[]> {
  const sockets = await io.in(conversationRoom(accountId, conversationId)).fetchSockets();
  const now = Date.now();
  const byUser = new Map<string, PresenceViewer>();
  for (const s of sockets) {
    const data = s.data as PresenceData;
    if (data.accountId !== accountId || data.viewing !== conversationId) continue;
    const typing = (data.typingUntil ?? 0) > now;
    const known = byUser.get(data.userId);
    byUser.set(data.userId, { userId: data.userId, name: data.name, typing: typing || (known?.typing ?? false) });
  }
  return [...byUser.values()].sort((a, b) => a.name.localeCompare(b.name) || a.userId.localeCompare(b.userId));
}

async function tell(io: Server, accountId: string, conversationId: string): Promise<void> {
  const viewers = await viewersOf(io, accountId, conversationId);
  io.to(conversationRoom(accountId, conversationId)).emit(
    PRESENCE_EVENTS.update,
    presenceUpdateSchema.parse({ conversationId, viewers }),
  );
}

/**
 * Wires one socket's presence events. Only conversations of the socket's own account can be joined: the room name
 * carries the account, and an id of another account's conversation only puts the socket in a room nobody else is in.
 */
export function attachPresence(io: Server, socket: Socket): void {
  const data = socket.data as PresenceData;
  const log = logger().child({ component: "presence" });
  const announce = (conversationId: string) => {
    tell(io, data.accountId, conversationId).catch((error: unknown) =>
      log.warn({ err: error }, "presence update failed"),
    );
  };

  socket.on(PRESENCE_EVENTS.view, (raw: unknown) => {
    const parsed = presenceViewSchema.safeParse(raw);
    if (!parsed.success) return;
    const next = parsed.data.conversationId;
    const previous = data.viewing ?? null;
    if (previous === next) {
      // The same view said again (after a reconnect): the newcomer needs the room's state.
      if (next) announce(next);
      return;
    }
    data.viewing = next;
    data.typingUntil = 0;
    if (previous) {
      void socket.leave(conversationRoom(data.accountId, previous));
      announce(previous);
    }
    if (next) {
      void socket.join(conversationRoom(data.accountId, next));
      announce(next);
    }
  });

  socket.on(PRESENCE_EVENTS.typing, (raw: unknown) => {
    const parsed = presenceTypingSchema.safeParse(raw);
    if (!parsed.success || parsed.data.conversationId !== data.viewing) return;
    const wasTyping = (data.typingUntil ?? 0) > Date.now();
    data.typingUntil = parsed.data.typing ? Date.now() + TYPING_TTL_MS : 0;
    // A repeated "still typing" is told too: browsers forget a typing staff member TYPING_TTL_MS after they last
    // heard of it (a tab closed mid-sentence on a server that died never says it stopped).
    if (wasTyping || parsed.data.typing) announce(parsed.data.conversationId);
  });

  socket.on("disconnect", () => {
    const viewing = data.viewing;
    data.viewing = null;
    if (viewing) announce(viewing);
  });
}
