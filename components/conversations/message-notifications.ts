import type { QueryClient } from "@tanstack/react-query";
import { keys } from "@/components/ui/query-keys";
import { formatNumber } from "@/components/ui/format-time";
import type { MessageChange } from "@/lib/realtime/change-schema";
import type { ConversationList, ThreadData } from "./thread-types";

/** What the browser knows of a conversation: its assignee and how staff know the phone, from the list or the thread. */
function known(cache: QueryClient, conversationId: string): { assigneeId: string | null; who: string } | null {
  const thread = cache.getQueryData<ThreadData>(keys.conversations.thread(conversationId))?.conversation;
  if (thread)
    return {
      assigneeId: thread.assigneeId ?? null,
      who: thread.contactName || formatNumber(thread.remoteNumber),
    };
  for (const [, list] of cache.getQueriesData<ConversationList>({ queryKey: keys.conversations.lists })) {
    const row = list?.conversations.find((c) => c.id === conversationId);
    if (row) return { assigneeId: row.assigneeId ?? null, who: row.contactName || formatNumber(row.remoteNumber) };
  }
  return null;
}

/**
 * A browser notification for each new inbound message in a conversation assigned to the viewer, when they allowed
 * notifications (asked on a click, never on load) and are not looking at that thread. `notified` keeps a message
 * from being shown twice (a message changes more than once).
 */
export function notifyInbound(
  cache: QueryClient,
  changes: MessageChange[],
  userId: string,
  notified: Set<string>,
): void {
  if (typeof Notification === "undefined" || Notification.permission !== "granted" || !userId) return;
  for (const { conversationId, message } of changes) {
    if (message.direction !== "inbound" || notified.has(message.id)) continue;
    notified.add(message.id);
    const conversation = known(cache, conversationId);
    if (!conversation || conversation.assigneeId !== userId) continue;
    const looking =
      document.visibilityState === "visible" &&
      window.location.pathname === `/conversations/${encodeURIComponent(conversationId)}`;
    if (looking) continue;
    const shown = new Notification(`New message from ${conversation.who}`, {
      body: message.body || `${message.media.length} media`,
      tag: message.id,
    });
    shown.onclick = () => {
      window.focus();
      window.location.assign(`/conversations/${encodeURIComponent(conversationId)}`);
    };
  }
}
