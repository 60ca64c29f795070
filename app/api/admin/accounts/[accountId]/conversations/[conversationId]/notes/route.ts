import { withAdmin, adminResult } from "@/lib/api/with-admin";
import { parseInput } from "@/lib/api/parse-input";
import { readJson } from "@/lib/api/read-json";
import { actorLabel } from "@/lib/audit/audit-trail";
import { staffMember } from "@/lib/conversations/staff-member";
import { addNote, conversationNotes } from "@/lib/notes/manage-notes";
import { addNoteSchema } from "@/lib/notes/note-schema";
import { announceNote } from "@/lib/realtime/start-realtime";

export const dynamic = "force-dynamic";

// GET /api/admin/accounts/{accountId}/conversations/{conversationId}/notes: the conversation's internal notes.
export const GET = withAdmin(
  async (ctx) => {
    const { userId } = staffMember(ctx);
    return adminResult({ notes: await conversationNotes(ctx.accountId, String(ctx.params.conversationId), userId) });
  },
  { agents: true },
);

// POST /api/admin/accounts/{accountId}/conversations/{conversationId}/notes: {body}, an internal note (never sent to
// the phone); @name mentions notify those staff members. Every open browser that may see the conversation gets it live.
export const POST = withAdmin(
  async (ctx) => {
    const { userId } = staffMember(ctx);
    const { body } = parseInput(addNoteSchema, await readJson(ctx.req));
    const { note, audience } = await addNote({
      accountId: ctx.accountId,
      conversationId: String(ctx.params.conversationId),
      authorId: userId,
      body,
      actor: actorLabel(ctx.actor),
      ip: ctx.ip,
    });
    announceNote(ctx.accountId, { conversationId: note.conversationId, note }, audience);
    return adminResult({ note }, true);
  },
  { agents: true },
);
