import { z } from "zod";

// The live view's payloads, shared by the server (which validates what it emits) and the browser (which validates
// what it receives). No server imports here: the client bundle imports this module.

export const threadMessageSchema = z.object({
  id: z.string(),
  conversationId: z.string(),
  direction: z.enum(["inbound", "outbound"]),
  body: z.string(),
  media: z.array(z.string()),
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
};

/** What a staff member reads beside a failed bubble. */
export function plainReason(status: string, reason: string): string {
  if (REASONS[reason]) return REASONS[reason];
  const detail = reason ? ` (${reason})` : "";
  switch (status) {
    case "rejected":
      return `Not sent: refused${detail}.`;
    case "failed":
      return `Not delivered: the carrier could not take it${detail}.`;
    case "undelivered":
      return `Not delivered: the carrier could not reach the phone${detail}.`;
    case "expired":
      return "Not delivered: no delivery receipt came within the validity period.";
    default:
      return reason;
  }
}
