import { z } from "zod";

// Who is looking at a conversation and who is writing in it, shared by the server (lib/realtime/presence.ts) and the
// browser (components/conversations/presence.tsx). No server imports here: the client bundle imports this module.

export const PRESENCE_EVENTS = {
  /** Browser → server: the conversation this socket shows now (null: none). */
  view: "presence.view",
  /** Browser → server: the staff member is writing (true) or stopped (false) in the conversation it views. */
  typing: "presence.typing",
  /** Server → browsers viewing a conversation: everyone who views it now. */
  update: "presence.update",
} as const;

export const presenceViewSchema = z.object({ conversationId: z.string().min(1).max(64).nullable() });
export const presenceTypingSchema = z.object({ conversationId: z.string().min(1).max(64), typing: z.boolean() });

export const presenceViewerSchema = z.object({ userId: z.string(), name: z.string(), typing: z.boolean() });
export type PresenceViewer = z.infer<typeof presenceViewerSchema>;

export const presenceUpdateSchema = z.object({
  conversationId: z.string(),
  viewers: z.array(presenceViewerSchema),
});
export type PresenceUpdate = z.infer<typeof presenceUpdateSchema>;

/** A "typing" lasts this long unless the browser says it again (it does every few seconds while keys are pressed). */
export const TYPING_TTL_MS = 6_000;
/** How often a browser repeats "typing" while the staff member keeps writing. */
export const TYPING_REPEAT_MS = 2_500;
