import type { QueryClient } from "@tanstack/react-query";
import { keys } from "@/components/ui/query-keys";
import { statusRank } from "@/lib/messaging/message-status";
import type { MessageChange, ThreadMessage } from "@/lib/realtime/change-schema";
import { PENDING_PREFIX, type ThreadData } from "./thread-types";

// The one reducer of the live view: live events and the catch-up after a reconnect both go through applyChange,
// so the two paths cannot disagree. It is idempotent: a change seen twice (two servers, a replay overlapping the
// live feed) changes nothing the second time, and a status never moves backwards.

function newer(current: ThreadMessage, next: ThreadMessage): boolean {
  const a = statusRank(current.status);
  const b = statusRank(next.status);
  if (b !== a) return b > a;
  return next.updatedAt >= current.updatedAt;
}

function byTime(a: ThreadMessage, b: ThreadMessage): number {
  return a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** A thread with one message added or moved forward; the pending bubble with its client id is replaced by it. */
export function upsertMessage(thread: ThreadData, message: ThreadMessage): ThreadData {
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
    const next = [...messages];
    next[at] = pending ? { ...message, createdAt: current.createdAt } : message;
    return { ...thread, messages: next };
  }
  return { ...thread, messages: [...messages, message].sort(byTime) };
}

/**
 * Applies one change to the cache: the thread it belongs to (if loaded), and, once per burst, the list (previews
 * and unread counts are recomputed by the server: the livechat pattern of refreshing the list query).
 */
export function applyChange(cache: QueryClient, change: MessageChange, onListStale: () => void): void {
  const key = keys.conversations.thread(change.conversationId);
  const thread = cache.getQueryData<ThreadData>(key);
  if (thread) {
    cache.setQueryData<ThreadData>(key, upsertMessage(thread, change.message));
    // A phone's message may change the thread's opt state (STOP, or words that look like it): banners are re-read.
    if (change.message.direction === "inbound" || change.message.reason === "OptedOut")
      void cache.invalidateQueries({ queryKey: key, refetchType: "active" });
  }
  onListStale();
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
    }
  }
  return merged;
}
