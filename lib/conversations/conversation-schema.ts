import { z } from "zod";
import { mediaUrlSchema } from "../messaging/check-media-url";

// The conversation view's inputs, shared by the routes (which parse with them) and the browser (which validates
// the composer with the same rules). No server imports.

export const conversationFiltersSchema = z.object({
  filter: z.enum(["all", "unread"]).default("all"),
  /** Mine, Unassigned and All keep open conversations that are not snoozed; Snoozed the snoozed ones; Resolved the resolved ones. */
  view: z.enum(["mine", "unassigned", "all", "snoozed", "resolved"]).default("all"),
  accountNumber: z.string().max(20).optional(),
  /** Conversations whose contact has this tag (any case). */
  tag: z.string().max(50).optional(),
  q: z.string().max(200).optional(),
  start: z.coerce.number().int().min(0).default(0),
  count: z.coerce.number().int().min(1).max(100).default(25),
});
export type ConversationFilters = z.infer<typeof conversationFiltersSchema>;

/** A pending bubble's id, sent as the message's referenceId (the API allows 1–40 letters or digits). */
export const clientIdSchema = z.string().regex(/^[A-Za-z0-9]{8,40}$/, "8 to 40 letters or digits");

/** What a staff member writes: text and media (one of them at least), under a client id. */
const messageFields = {
  body: z.string().max(1600, "at most 1,600 characters").default(""),
  media: z.array(mediaUrlSchema).max(10, "at most 10 media URLs").default([]),
  clientId: clientIdSchema,
};
const hasContent = (r: { body: string; media: string[] }) => r.body.trim() !== "" || r.media.length > 0;
const contentRequired = { message: "write a message or add media", path: ["body"] };

export const replySchema = z.object(messageFields).refine(hasContent, contentRequired);
export type ReplyInput = z.infer<typeof replySchema>;

/** A conversation a staff member starts: the account number it is sent from, the phone, and the first message. */
export const startConversationSchema = z
  .object({
    from: z.string().trim().min(1, "pick the number to send from").max(20),
    to: z
      .string()
      .trim()
      .regex(/^\+[1-9]\d{6,14}$/, "a phone number with its country code, such as +14155550123"),
    ...messageFields,
  })
  .refine(hasContent, contentRequired);
export type StartConversationInput = z.infer<typeof startConversationSchema>;

export const readSchema = z.object({ read: z.boolean() });

export const catchUpQuerySchema = z.object({ after: z.coerce.number().int().min(0) });

/** A page of older messages of a thread: those before this message of it. */
export const olderQuerySchema = z.object({ before: z.string().min(1).max(64) });

/** A thread opened at one of its messages (a search result). */
export const threadQuerySchema = z.object({ at: z.string().min(1).max(64).optional() });

/** Search across the account's conversations: message bodies, contact names and numbers. */
export const searchQuerySchema = z.object({ q: z.string().trim().min(1, "type something to search for").max(200) });
/** Assign to a staff member of the account (a user id), or leave unassigned (null). */
export const assignSchema = z.object({ assigneeId: z.string().min(1).max(100).nullable() }).strict();

/** Resolve or reopen. */
export const statusSchema = z.object({ status: z.enum(["open", "resolved"]) }).strict();

/** Snooze until a time (ISO 8601); a new inbound message ends it. */
export const snoozeSchema = z.object({ until: z.coerce.date() }).strict();
