import { z } from "zod";
import { mediaUrlSchema } from "../messaging/check-media-url";

// The conversation view's inputs, shared by the routes (which parse with them) and the browser (which validates
// the composer with the same rules). No server imports.

export const conversationFiltersSchema = z.object({
  filter: z.enum(["all", "unread"]).default("all"),
  accountNumber: z.string().max(20).optional(),
  q: z.string().max(200).optional(),
  start: z.coerce.number().int().min(0).default(0),
  count: z.coerce.number().int().min(1).max(100).default(25),
});
export type ConversationFilters = z.infer<typeof conversationFiltersSchema>;

/** A pending bubble's id, sent as the message's referenceId (the API allows 1–40 letters or digits). */
export const clientIdSchema = z.string().regex(/^[A-Za-z0-9]{8,40}$/, "8 to 40 letters or digits");

export const replySchema = z
  .object({
    body: z.string().max(1600, "at most 1,600 characters").default(""),
    media: z.array(mediaUrlSchema).max(10, "at most 10 media URLs").default([]),
    clientId: clientIdSchema,
  })
  .refine((r) => r.body.trim() !== "" || r.media.length > 0, {
    message: "write a message or add media",
    path: ["body"],
  });
export type ReplyInput = z.infer<typeof replySchema>;

export const readSchema = z.object({ read: z.boolean() });

export const catchUpQuerySchema = z.object({ after: z.coerce.number().int().min(0) });
