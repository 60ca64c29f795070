import { withAdmin, adminResult } from "@/lib/api/with-admin";
import { parseInput } from "@/lib/api/parse-input";
import { readJson } from "@/lib/api/read-json";
import { staffMember } from "@/lib/conversations/staff-member";
import { markMentionsRead } from "@/lib/notes/manage-notes";
import { markMentionsReadSchema } from "@/lib/notes/note-schema";

export const dynamic = "force-dynamic";

// POST /api/admin/accounts/{accountId}/mentions/read: {conversationId?} marks the viewer's mentions read (those of
// one conversation, or all).
export const POST = withAdmin(
  async (ctx) => {
    const { userId } = staffMember(ctx);
    const input = parseInput(markMentionsReadSchema, await readJson(ctx.req));
    return adminResult(await markMentionsRead({ accountId: ctx.accountId, userId, ...input }), true);
  },
  { agents: true },
);
