import type { Server, Socket } from "socket.io";
import { env } from "../env";
import { readDb } from "../db/client";
import { fanOutPool } from "../db/fan-out-pool";
import { logger } from "../log";
import { changesAfter } from "../conversations/thread-messages";
import { catchUpQuerySchema } from "../conversations/conversation-schema";
import { fanOutKind, installAnnouncer, POKE_EVENT, throttleAnnouncements } from "./announce-changes";
import { accountRoom, startChangeFeed, userRoom, type ChangeFeed } from "./change-feed";
import {
  catchUpSchema,
  CONVERSATION_UPDATE_EVENT,
  type ConversationUpdate,
  conversationUpdateSchema,
  MAX_REPLAY,
  NOTE_EVENT,
  CONTACTS_EVENT,
  contactsChangeSchema,
  type NoteChange,
  noteChangeSchema,
  readChangeSchema,
  SOCKET_EVENTS,
} from "./change-schema";
import { socketUser } from "./socket-auth";
import { visibilityFilter } from "./visible-changes";
import { sessionRoom } from "./disconnect-sessions";
import { processSingleton } from "../process-singletons";
import { attachPresence, type PresenceData } from "./presence";

interface SocketData extends PresenceData {
  sessionId: string;
}

const holder = processSingleton("io", (): { __parleyIo?: Server } => ({}));

// Open sockets are checked again this often: a session that expired, or was ended where the socket.io server could
// not be told (lib/realtime/disconnect-sessions.ts), and a user disabled or moved to another account since the
// handshake, lose the live feed within it, as pages and routes refuse them on their next request. Ending a session
// from a server disconnects its sockets at once.
const RECHECK_MS = 5_000;

async function dropStaleSockets(io: Server): Promise<void> {
  const sockets = [...io.of("/").sockets.values()];
  if (sockets.length === 0) return;
  const ids = [...new Set(sockets.map((s) => (s.data as SocketData).sessionId))];
  const now = new Date();
  const sessions = await readDb().portalSession.findMany({
    where: { id: { in: ids }, revokedAt: null, expiresAt: { gt: now }, user: { disabledAt: null } },
    select: { id: true, userId: true, accountId: true, user: { select: { accountId: true } } },
  });
  const open = new Map(sessions.map((s) => [s.id, s]));
  for (const socket of sockets) {
    const data = socket.data as SocketData;
    const session = open.get(data.sessionId);
    const stands =
      session?.userId === data.userId &&
      session.accountId === data.accountId &&
      session.user.accountId === data.accountId;
    if (!stands) socket.disconnect(true);
  }
}

/**
 * The live view on socket.io: sockets authenticated by the portal session (none, no socket), each in its
 * account's room and its user's room; the change feed; catch-up after a reconnect; and, with several servers,
 * the adapter that relays announcements (REDIS_URL, or PostgreSQL's with REALTIME_PG_ADAPTER).
 */
export async function startRealtime(io: Server): Promise<{ feed: ChangeFeed; stop(): Promise<void> }> {
  const config = env();
  const log = logger().child({ component: "realtime" });
  const closers: (() => Promise<unknown>)[] = [];
  const kind = fanOutKind();
  if (kind === "redis") {
    const { createClient } = await import("redis");
    const { createAdapter } = await import("@socket.io/redis-adapter");
    const pub = createClient({ url: config.REDIS_URL });
    const sub = pub.duplicate();
    for (const c of [pub, sub]) c.on("error", (error: unknown) => log.warn({ err: error }, "Redis error"));
    await Promise.all([pub.connect(), sub.connect()]);
    io.adapter(createAdapter(pub, sub));
    closers.push(() => Promise.all([pub.quit(), sub.quit()]).catch(() => undefined));
  } else if (kind === "postgresql") {
    const { createAdapter } = await import("@socket.io/postgres-adapter");
    const pool = await fanOutPool((error) => log.warn({ err: error }, "PostgreSQL adapter error"));
    io.adapter(createAdapter(pool));
    closers.push(() => pool.end().catch(() => undefined));
  }

  const feed = await startChangeFeed(io, config.REALTIME_POLL_MS);
  const tellOthers = kind ? throttleAnnouncements(() => io.serverSideEmit(POKE_EVENT)) : () => {};
  installAnnouncer({
    announce: () => {
      feed.poke();
      tellOthers();
    },
    close: async () => {},
  });
  io.on(POKE_EVENT, () => feed.poke());

  io.use((socket, next) => {
    socketUser(socket.request)
      .then((user) => {
        if (!user) return next(new Error("Unauthorized"));
        socket.data = {
          userId: user.id,
          accountId: user.accountId,
          sessionId: user.sessionId,
          name: user.name,
        } satisfies SocketData;
        next();
      })
      .catch((error: unknown) => {
        log.warn({ err: error }, "socket authentication failed");
        next(new Error("Unauthorized"));
      });
  });

  io.on("connection", (socket: Socket) => {
    const data = socket.data as SocketData;
    void socket.join([accountRoom(data.accountId), userRoom(data.userId), sessionRoom(data.sessionId)]);
    attachPresence(io, socket);
    // Everything of the account after a position: the reconnect path (and the first connection after a page load).
    socket.on(SOCKET_EVENTS.catchUp, (raw: unknown, ack: unknown) => {
      if (typeof ack !== "function") return;
      const parsed = catchUpQuerySchema.safeParse(raw);
      if (!parsed.success) return ack({ error: "InvalidRequest" });
      changesAfter({ accountId: data.accountId, after: parsed.data.after, limit: MAX_REPLAY })
        .then(async (answer) => {
          // Only the conversations this user may see (the account may show agents only theirs).
          const visibleTo = await visibilityFilter(data.accountId, answer.changes);
          const changes = visibleTo ? await visibleTo(data.userId) : answer.changes;
          ack(catchUpSchema.parse({ ...answer, changes }));
        })
        .catch((error: unknown) => {
          log.warn({ err: error }, "catch-up failed");
          ack({ error: "SystemFailure" });
        });
    });
  });

  const recheck = setInterval(() => {
    dropStaleSockets(io).catch((error: unknown) => log.warn({ err: error }, "socket re-check failed"));
  }, RECHECK_MS);
  recheck.unref();

  holder.__parleyIo = io;
  return {
    feed,
    async stop() {
      clearInterval(recheck);
      await feed.stop();
      await Promise.all(closers.map((c) => c()));
    },
  };
}

/** Tells the user's own browsers (every tab, on any server) that their read marker moved. */
export function announceRead(userId: string, change: { conversationId: string; lastReadAt: string }): void {
  holder.__parleyIo?.to(userRoom(userId)).emit(SOCKET_EVENTS.read, readChangeSchema.parse(change));
}

/**
 * Tells the browsers that may see a conversation that its status or assignee changed: the account's room, or only
 * the listed users' rooms (an account whose agents see only theirs and the unassigned ones). The adapter relays
 * it to the other servers. A process without the socket.io server (the worker, the CLI) sends nothing: the
 * browsers learn of it from the message it came with, or on their next read.
 */
export function announceConversationUpdate(
  accountId: string,
  update: ConversationUpdate,
  audience: "account" | string[] = "account",
): void {
  const io = holder.__parleyIo;
  if (!io) return;
  const payload = conversationUpdateSchema.parse(update);
  const rooms = audience === "account" ? accountRoom(accountId) : audience.map(userRoom);
  if (rooms.length === 0) return;
  io.to(rooms).emit(CONVERSATION_UPDATE_EVENT, payload);
}

/**
 * Tells the browsers (on any server) that may see the conversation of a new internal note: the account's, or only
 * the listed users' (an account whose agents see only theirs).
 */
export function announceNote(accountId: string, change: NoteChange, audience: "account" | string[] = "account"): void {
  const rooms = audience === "account" ? accountRoom(accountId) : audience.map(userRoom);
  if (rooms.length === 0) return;
  holder.__parleyIo?.to(rooms).emit(NOTE_EVENT, noteChangeSchema.parse(change));
}

/** Tells every browser of the account (on any server) that contacts changed: names shown everywhere follow. */
export function announceContacts(accountId: string, numbers: string[]): void {
  const payload = contactsChangeSchema.parse({ numbers: numbers.length <= 100 ? numbers : [] });
  holder.__parleyIo?.to(accountRoom(accountId)).emit(CONTACTS_EVENT, payload);
}
