import { z } from "zod";
import { attachmentSchema } from "../media/attachment";
import { noteViewSchema } from "../notes/note-schema";
import { explainStatus } from "../messaging/explain-status";

// The live view's payloads, shared by the server (which validates what it emits) and the browser (which validates
// what it receives). No server imports here: the client bundle imports this module.

export const threadMessageSchema = z.object({
  id: z.string(),
  conversationId: z.string(),
  direction: z.enum(["inbound", "outbound"]),
  body: z.string(),
  media: z.array(z.string()),
  /** The media as Parley keeps them (lib/media/media-records.ts): for the thread's pictures, players and chips. */
  attachments: z.array(attachmentSchema).optional(),
  /** The listing status ("" for inbound), or "sending…" states of a bubble the server has not answered yet. */
  status: z.string(),
  /** Why a message failed, as the SDRs or the refusal say it (a code such as OptedOut, or the carrier's words). */
  reason: z.string(),
  numSegments: z.number().int(),
  encoding: z.string(),
  /** An outbound message sent without `conversational` (a notification): shown as a muted line, not a bubble. */
  automated: z.boolean(),
  userId: z.string().nullable(),
  userType: z.string().nullable(),
  /** The staff member's name when userType is "agent" and userId is one of the account's users. */
  senderName: z.string().nullable(),
  referenceId: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type ThreadMessage = z.infer<typeof threadMessageSchema>;

/** One change of one message, at its position in the account's log of changes (the SDR id that reported it). */
export const messageChangeSchema = z.object({
  position: z.number().int(),
  accountId: z.string(),
  conversationId: z.string(),
  message: threadMessageSchema,
});
export type MessageChange = z.infer<typeof messageChangeSchema>;

/** The answer to "everything after position N": the changes, or `tooOld` when the gap is too large to replay. */
export const catchUpSchema = z.object({
  changes: z.array(messageChangeSchema),
  position: z.number().int(),
  tooOld: z.boolean(),
});
export type CatchUp = z.infer<typeof catchUpSchema>;

/** A read marker moved (this user, in another tab, or "Mark unread"): only the user's own sockets get it. */
export const readChangeSchema = z.object({ conversationId: z.string(), lastReadAt: z.string() });

export const SOCKET_EVENTS = { change: "message.change", read: "conversation.read", catchUp: "catch-up" } as const;

/** Changes the live view replays after a reconnect; a client further behind refetches everything. */
export const MAX_REPLAY = 10_000;

// Plain words for the codes a refusal or a delivery failure carries.
const REASONS: Record<string, string> = {
  OptedOut: "Not sent: this phone opted out (it texted STOP or was opted out by an admin).",
  FromNotOwned: "Not sent: the number it was sent from no longer belongs to the account.",
  InvalidDestination: "Not sent: the phone number is not valid.",
  DuplicateDestination: "Not sent: the same phone was listed twice.",
  CountryNotAllowed: "Not sent: the account does not send to this phone's country.",
};

/**
 * What a staff member reads beside a failed bubble: the same sentence the message page leads with (explainStatus),
 * never the carrier's raw receipt (`id:sim-… stat:UNDELIV err:069 …`), which stays on the message page for support.
 */
export function plainReason(status: string, reason: string): string {
  if (REASONS[reason]) return REASONS[reason];
  const explained = explainStatus({
    status,
    rejectReason: status === "rejected" ? reason : null,
    sdrs: reason ? [{ status, statusDetails: reason }] : [],
  });
  // Read from a receipt or a carrier's code: its plain words. A reason explainStatus only repeats (a refusal's own
  // sentence) reads better as it is.
  if (explained && explained.code !== reason && explained.detail !== reason) {
    return explained.detail ? `${explained.title} ${explained.detail}` : explained.title;
  }
  const detail = reason ? ` (${reason})` : "";
  switch (status) {
    case "rejected":
      return `Not sent: refused${detail}.`;
    case "failed":
      return `Not delivered: the carrier could not take it${detail}.`;
    case "undelivered":
      return `Not delivered: the carrier could not reach the phone${detail}.`;
    default:
      return reason;
  }
}

/** One entry of a thread's activity (assigned, resolved, reopened…), with the names it reads with. */
export const activitySchema = z.object({
  id: z.string(),
  conversationId: z.string(),
  kind: z.enum(["assigned", "unassigned", "resolved", "reopened", "snoozed", "note"]),
  actorId: z.string().nullable(),
  actorName: z.string().nullable(),
  targetId: z.string().nullable(),
  targetName: z.string().nullable(),
  body: z.string(),
  createdAt: z.string(),
});
export type ActivityView = z.infer<typeof activitySchema>;

/**
 * A conversation's status or assignee changed (event "conversation.update"): its state now, and the activity entry
 * that says who changed it. Sent to the browsers of the account that may see the conversation.
 */
export const conversationUpdateSchema = z.object({
  conversationId: z.string(),
  status: z.enum(["open", "resolved"]),
  assigneeId: z.string().nullable(),
  assigneeName: z.string().nullable(),
  snoozedUntil: z.string().nullable(),
  activity: activitySchema.nullable(),
});
export type ConversationUpdate = z.infer<typeof conversationUpdateSchema>;

export const CONVERSATION_UPDATE_EVENT = "conversation.update";

/** A new internal note in a conversation (socket.io `conversation.note`, to every browser of the account). */
export const noteChangeSchema = z.object({ conversationId: z.string(), note: noteViewSchema });
export type NoteChange = z.infer<typeof noteChangeSchema>;
export const NOTE_EVENT = "conversation.note";

/** Contacts staff saved, forgot or imported: the numbers (empty: too many to list, read every name again). */
export const contactsChangeSchema = z.object({ numbers: z.array(z.string()).max(100) });
export type ContactsChange = z.infer<typeof contactsChangeSchema>;
export const CONTACTS_EVENT = "contacts.changed";
