import { z } from "zod";

// Internal notes' inputs and shapes, shared by the routes, the live event and the browser. No server imports.

export const addNoteSchema = z.strictObject({
  body: z
    .string()
    .max(4000, "at most 4,000 characters")
    .refine((b) => b.trim() !== "", "write the note"),
});
export type AddNoteInput = z.infer<typeof addNoteSchema>;

export const markMentionsReadSchema = z.strictObject({ conversationId: z.string().min(1).max(100).optional() });

export const noteViewSchema = z.object({
  id: z.string(),
  conversationId: z.string(),
  authorId: z.string(),
  authorName: z.string(),
  body: z.string(),
  mentions: z.array(z.object({ id: z.string(), name: z.string() })),
  createdAt: z.string(),
});
/** A note as the thread shows it. */
export type NoteView = z.infer<typeof noteViewSchema>;

export interface MentionView {
  id: string;
  noteId: string;
  conversationId: string;
  authorName: string;
  body: string;
  createdAt: string;
}
