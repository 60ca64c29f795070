import { z } from "zod";

// The canned replies' inputs, shared by the routes (which parse with them) and the page (which checks the form with
// the same rules). No server imports.

export const SHORTCUT_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;

const shortcut = z
  .string()
  .trim()
  .min(1, "write a shortcut")
  .max(32, "at most 32 characters")
  .regex(SHORTCUT_PATTERN, "letters, digits, - and _ only (no spaces), starting with a letter or digit");

const text = z
  .string()
  .max(1600, "at most 1,600 characters")
  .refine((t) => t.trim() !== "", "write the reply's text");

/** "account": every staff member of the account sees it (admins only); "personal": only its owner. */
export const cannedReplyScopeSchema = z.enum(["account", "personal"]);
export type CannedReplyScope = z.infer<typeof cannedReplyScopeSchema>;

export const createCannedReplySchema = z.strictObject({
  shortcut,
  text,
  /** Omitted: account-wide for an admin, personal for an agent. */
  scope: cannedReplyScopeSchema.optional(),
});
export type CreateCannedReplyInput = z.infer<typeof createCannedReplySchema>;

export const updateCannedReplySchema = z
  .strictObject({ shortcut: shortcut.optional(), text: text.optional(), scope: cannedReplyScopeSchema.optional() })
  .refine((u) => u.shortcut !== undefined || u.text !== undefined || u.scope !== undefined, {
    message: "nothing to change: send shortcut, text or scope",
  });
export type UpdateCannedReplyInput = z.infer<typeof updateCannedReplySchema>;

/** A canned reply as the page and the composer's picker get it. */
export interface CannedReplyView {
  id: string;
  shortcut: string;
  text: string;
  scope: CannedReplyScope;
  /** Whether the viewer may change or delete it (an agent cannot change account-wide replies). */
  editable: boolean;
  updatedAt: string;
}
