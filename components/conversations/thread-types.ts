// Types only: erased from the bundle, so the server module it names never reaches the browser.
import type { ConversationSummary } from "@/lib/conversations/manage-conversations";
import type { ActivityView, ThreadMessage } from "@/lib/realtime/change-schema";
import type { Attachment } from "@/lib/media/attachment";
import type { NoteView } from "@/lib/notes/note-schema";

/**
 * A message of a thread as the portal keeps it: the live feed's fields, and its media described (type, size, state)
 * when the server says so; without them the bubble shows the media URLs alone.
 */
export type ThreadMessageView = ThreadMessage & { attachments?: Attachment[] };

// The thread as the thread route answers it and as the cache keeps it.
export interface ThreadData {
  conversation: {
    id: string;
    accountNumber: string;
    remoteNumber: string;
    lastMessageAt: string;
    createdAt: string;
    /** The contact's saved name, or null while nobody named the number. */
    contactName: string | null;
    // The inbox's state (absent from a thread cached before the server knew them: open and unassigned).
    status?: "open" | "resolved";
    assigneeId?: string | null;
    assigneeName?: string | null;
    snoozedUntil?: string | null;
  };
  messages: ThreadMessageView[];
  /** Who assigned, resolved or reopened it, shown among the messages by time. */
  activity?: ActivityView[];
  hasOlder: boolean;
  /** The message the thread was opened at (a search result): scrolled to and marked. */
  at?: string | null;
  optOut: { at: string; source: string; keyword: string | null; actor: string } | null;
  possibleOptOut: string[];
  lastReadAt: string | null;
  position: number;
  /** Internal notes (staff only), shown among the messages by time. */
  notes: NoteView[];
}

/** The list route's answer: one row per conversation as listConversations() makes it. */
export interface ConversationList {
  conversations: ConversationSummary[];
  total: number;
  start: number;
  count: number;
  /** How many conversations each view holds (Mine, Unassigned and All: open ones). */
  counts?: { mine: number; unassigned: number; all: number; snoozed: number; resolved: number };
}

/** A bubble the browser shows before the server answered: its id until then is "pending-" + its client id. */
export const PENDING_PREFIX = "pending-";
export const PENDING_STATUS = "pending";
