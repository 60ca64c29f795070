// Types only: erased from the bundle, so the server module it names never reaches the browser.
import type { ConversationSummary } from "@/lib/conversations/manage-conversations";
import type { ThreadMessage } from "@/lib/realtime/change-schema";

// The thread as the thread route answers it and as the cache keeps it.
export interface ThreadData {
  conversation: { id: string; accountNumber: string; remoteNumber: string; lastMessageAt: string; createdAt: string };
  messages: ThreadMessage[];
  hasOlder: boolean;
  optOut: { at: string; source: string; keyword: string | null; actor: string } | null;
  possibleOptOut: string[];
  lastReadAt: string | null;
  position: number;
}

/** The list route's answer: one row per conversation as listConversations() makes it. */
export interface ConversationList {
  conversations: ConversationSummary[];
  total: number;
  start: number;
  count: number;
}

/** A bubble the browser shows before the server answered: its id until then is "pending-" + its client id. */
export const PENDING_PREFIX = "pending-";
export const PENDING_STATUS = "pending";
