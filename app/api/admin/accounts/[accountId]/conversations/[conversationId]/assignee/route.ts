import { withAdmin, adminResult } from "@/lib/api/with-admin";
import { parseInput } from "@/lib/api/parse-input";
import { readJson } from "@/lib/api/read-json";
import { assignSchema } from "@/lib/conversations/conversation-schema";
import { assignConversation } from "@/lib/conversations/conversation-status";
import { inboxActor } from "@/lib/conversations/inbox-actor";

export const dynamic = "force-dynamic";

// PATCH /api/admin/accounts/{accountId}/conversations/{conversationId}/assignee: {"assigneeId": "<user id>" | null}.
// Admins assign anyone; an agent takes an unassigned conversation for themselves or hands back their own.
export const PATCH = withAdmin(
  async (ctx) => {
    const actor = await inboxActor(ctx);
    const { assigneeId } = parseInput(assignSchema, await readJson(ctx.req));
    const conversationId = String(ctx.params.conversationId);
    return adminResult(await assignConversation({ accountId: ctx.accountId, actor, conversationId, assigneeId }), true);
  },
  { agents: true },
);
