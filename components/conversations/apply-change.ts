import type { QueryClient } from "@tanstack/react-query";
import { keys } from "@/components/ui/query-keys";
import { statusRank } from "@/lib/messaging/message-status";
import type { MessageChange, ThreadMessage } from "@/lib/realtime/change-schema";
import type { SimulatorMessage, SimulatorThread } from "@/lib/carriers/simulator/phone-simulator-schema";
import type { Attachment } from "@/lib/media/attachment";
import { PENDING_PREFIX, PENDING_STATUS, type ThreadData, type ThreadMessageView } from "./thread-types";

// The one reducer of the live view: live events, the catch-up after a reconnect and the composer's own sends all go
// through applyChange, so the paths cannot disagree. It is idempotent: a change seen twice (two servers, a replay
// overlapping the live feed) changes nothing the second time, and a status never moves backwards.

/** What can happen to a thread's messages. */
export type ThreadChange =
  /** The server says this is the message's state now (a live event, a replayed one). */
  | { kind: "message"; message: ThreadMessageView }
  /** The composer shows a bubble at once, under "pending-" + its client id, before the server answered. */
  | { kind: "pending"; message: ThreadMessageView }
  /** The composer's bubble carries files it uploaded: it shows them (type, size, name) as the server will. */
  | { kind: "described"; conversationId: string; clientId: string; attachments: Attachment[] }
  /** The server took the reply (accepted or refused by a rule such as an opt-out): the bubble gets its id. */
  | {
      kind: "answered";
      conversationId: string;
      clientId: string;
      message: {
        messageId: string;
        status: "accepted" | "rejected";
        reason: string;
        body: string;
        numSegments: number;
      };
    }
  /** The reply never reached the server, or the server refused the request: the bubble stays, marked failed. */
  | { kind: "refused"; conversationId: string; clientId: string; reason: string };

function conversationOf(change: ThreadChange): string {
  return change.kind === "message" || change.kind === "pending" ? change.message.conversationId : change.conversationId;
}

function newer(current: ThreadMessage, next: ThreadMessage): boolean {
  const a = statusRank(current.status);
  const b = statusRank(next.status);
  if (b !== a) return b > a;
  return next.updatedAt >= current.updatedAt;
}

function byTime(a: ThreadMessage, b: ThreadMessage): number {
  return a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

function sameMedia(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((url, i) => url === b[i]);
}

/**
 * The message with the attachments already known of it kept, when a change that does not describe media (the live
 * feed's, a status update) names the very same media.
 */
function keepAttachments<T extends { media: string[]; attachments?: Attachment[] }>(
  next: T,
  current: T | undefined,
): T {
  if (next.attachments || !current?.attachments || !sameMedia(next.media, current.media)) return next;
  return { ...next, attachments: current.attachments };
}

/** A thread with one message added or moved forward; the pending bubble with its client id is replaced by it. */
export function upsertMessage(thread: ThreadData, message: ThreadMessageView): ThreadData {
  if (thread.conversation.id !== message.conversationId) return thread;
  const messages = thread.messages;
  const at = messages.findIndex(
    (m) =>
      m.id === message.id ||
      (m.id.startsWith(PENDING_PREFIX) && message.referenceId !== null && m.referenceId === message.referenceId),
  );
  if (at >= 0) {
    const current = messages[at]!;
    const pending = current.id.startsWith(PENDING_PREFIX);
    if (!pending && !newer(current, message)) return thread;
    const kept = keepAttachments(message, current);
    const next = [...messages];
    next[at] = pending ? { ...kept, createdAt: current.createdAt } : kept;
    return { ...thread, messages: next };
  }
  return { ...thread, messages: [...messages, message].sort(byTime) };
}

/** The composer's bubble for `clientId` while the server has not placed it: by its pending id or its client id. */
function patchBubble(
  thread: ThreadData,
  clientId: string,
  patch: (m: ThreadMessageView) => ThreadMessageView,
): ThreadData {
  let changed = false;
  const messages = thread.messages.map((m) => {
    if (m.id !== PENDING_PREFIX + clientId && !(m.referenceId === clientId && m.status === PENDING_STATUS)) return m;
    changed = true;
    return patch(m);
  });
  return changed ? { ...thread, messages } : thread;
}

/** The thread after one change: the pure part of applyChange. */
export function reduceThread(thread: ThreadData, change: ThreadChange): ThreadData {
  if (thread.conversation.id !== conversationOf(change)) return thread;
  switch (change.kind) {
    case "message":
      return upsertMessage(thread, change.message);
    case "pending":
      if (thread.messages.some((m) => m.id === change.message.id)) return thread;
      return { ...thread, messages: [...thread.messages, change.message] };
    case "answered": {
      const answer = change.message;
      // Whichever comes first, this answer or the live echo, the other one finds the bubble by id or client id;
      // once the echo has replaced the bubble, the answer has nothing left to say.
      return patchBubble(thread, change.clientId, (m) =>
        m.id.startsWith(PENDING_PREFIX)
          ? {
              ...m,
              id: answer.messageId,
              status: answer.status === "rejected" ? "rejected" : "queued",
              reason: answer.reason,
              body: answer.body,
              numSegments: answer.numSegments,
              // Whatever the server says of this message next wins over the browser's guess.
              updatedAt: "",
            }
          : m,
      );
    }
    case "refused":
      return patchBubble(thread, change.clientId, (m) => ({ ...m, status: "failed", reason: change.reason }));
    case "described":
      return patchBubble(thread, change.clientId, (m) =>
        m.id.startsWith(PENDING_PREFIX) ? { ...m, attachments: change.attachments } : m,
      );
  }
}

function furtherAlong(current: SimulatorMessage, next: SimulatorMessage): boolean {
  const a = statusRank(current.status);
  const b = statusRank(next.status);
  return b > a || (b === a && next.updatedAt > current.updatedAt);
}

/** A phone's thread read again, keeping what a live change told the cache while the read was on its way. */
export function keepNewerOnPhone(fresh: SimulatorThread, previous: SimulatorThread | undefined): SimulatorThread {
  if (!previous) return fresh;
  const known = new Map(previous.messages.map((m) => [m.messageId, m]));
  let changed = false;
  const messages = fresh.messages.map((m) => {
    const seen = known.get(m.messageId);
    if (!seen || !furtherAlong(m, seen)) return m;
    changed = true;
    return seen;
  });
  return changed ? { ...fresh, messages } : fresh;
}

/** A simulated phone's thread with a message of its conversation added or moved forward. */
export function reducePhoneThread(thread: SimulatorThread, count: number, message: ThreadMessageView): SimulatorThread {
  const at = thread.messages.findIndex((m) => m.messageId === message.id);
  const described: SimulatorMessage = {
    messageId: message.id,
    direction: message.direction,
    body: message.body,
    media: message.media,
    status: message.status,
    rejectReason: message.status === "rejected" ? message.reason || null : null,
    automatic: message.userType === "automatic",
    numSegments: message.numSegments,
    createdAt: message.createdAt,
    updatedAt: message.updatedAt,
    ...(message.attachments ? { attachments: message.attachments } : {}),
  };
  const shown = keepAttachments(described, at >= 0 ? thread.messages[at] : undefined);
  if (at >= 0) {
    if (!furtherAlong(thread.messages[at]!, shown)) return thread;
    const messages = [...thread.messages];
    messages[at] = shown;
    return { ...thread, messages };
  }
  // Older than everything shown: it belongs to the part of the thread not loaded, which only grows by one.
  const oldest = thread.messages[0];
  if (oldest && thread.messages.length >= count && shown.createdAt < oldest.createdAt)
    return { ...thread, total: thread.total + 1 };
  const messages = [...thread.messages, shown].sort((x, y) =>
    x.createdAt < y.createdAt ? -1 : x.createdAt > y.createdAt ? 1 : x.messageId < y.messageId ? -1 : 1,
  );
  return { ...thread, messages: messages.slice(-count), total: thread.total + 1 };
}

type PhoneThreadData = { thread: SimulatorThread };

/** The open phone simulator threads (their query key holds the phone, the account number and how many are shown). */
function applyToPhones(cache: QueryClient, change: ThreadChange & { kind: "message" }): void {
  for (const [key, data] of cache.getQueriesData<PhoneThreadData>({ queryKey: keys.simulator.all })) {
    if (!data) continue;
    const conversationId = data.thread.conversationId;
    if (conversationId === null) {
      // A phone with no conversation yet: the first one of the account's messages to it may have started one.
      void cache.invalidateQueries({ queryKey: key, exact: true });
      continue;
    }
    if (conversationId !== change.message.conversationId) continue;
    const count = (key[2] as { count?: number } | undefined)?.count ?? data.thread.messages.length;
    cache.setQueryData<PhoneThreadData>(key, { thread: reducePhoneThread(data.thread, count, change.message) });
    // A phone's text may change its opt state (STOP, START): the thread is read again for it.
    if (change.message.direction === "inbound") void cache.invalidateQueries({ queryKey: key, exact: true });
  }
}

/**
 * Applies one change to the cache: the thread it belongs to (if loaded), an open phone of the simulator talking in
 * that conversation, and, once per burst for the server's changes, the list (previews and unread counts are
 * recomputed by the server: the livechat pattern of refreshing the list query).
 */
export function applyChange(cache: QueryClient, change: ThreadChange, onListStale: () => void = () => {}): void {
  const key = keys.conversations.thread(conversationOf(change));
  const thread = cache.getQueryData<ThreadData>(key);
  if (thread) {
    const next = reduceThread(thread, change);
    if (next !== thread) cache.setQueryData<ThreadData>(key, next);
  }
  if (change.kind !== "message") return;
  // A phone's message may change the thread's opt state (STOP, or words that look like it): banners are re-read.
  if (thread && (change.message.direction === "inbound" || change.message.reason === "OptedOut"))
    void cache.invalidateQueries({ queryKey: key, refetchType: "active" });
  applyToPhones(cache, change);
  onListStale();
}

/** A change of the server's log as the reducer takes it. */
export function fromServer(change: MessageChange): ThreadChange {
  return { kind: "message", message: change.message };
}

/** Keeps the browser's pending bubbles (not yet known to the server) when a thread is read again. */
export function keepPending(fresh: ThreadData, previous: ThreadData | undefined): ThreadData {
  if (!previous) return fresh;
  let merged = fresh;
  for (const m of previous.messages) {
    const known = fresh.messages.some(
      (f) => f.id === m.id || (m.referenceId !== null && f.referenceId === m.referenceId),
    );
    if (!known && (m.id.startsWith(PENDING_PREFIX) || m.conversationId === fresh.conversation.id))
      merged = { ...merged, messages: [...merged.messages, m].sort(byTime) };
    else if (known) {
      // The server's copy wins unless ours is further along (a live change that overtook the read).
      const f = merged.messages.find((x) => x.id === m.id);
      if (f && newer(f, m) && f !== m) merged = upsertMessage(merged, m);
      else if (f && !f.attachments && m.attachments) {
        // A server that does not describe media yet: the description the browser had stays.
        const kept = keepAttachments(f, m);
        if (kept !== f) merged = { ...merged, messages: merged.messages.map((x) => (x === f ? kept : x)) };
      }
    }
  }
  return merged;
}
