import { withAdmin, adminResult } from "@/lib/api/with-admin";
import { getThread } from "@/lib/conversations/manage-conversations";
import { staffMember } from "@/lib/conversations/staff-member";
import { parseInput, queryObject } from "@/lib/api/parse-input";
import { threadQuerySchema } from "@/lib/conversations/conversation-schema";

export const dynamic = "force-dynamic";

// GET /api/admin/accounts/{accountId}/conversations/{conversationId}[?at=messageId]: the thread (its newest
// messages, or from just before one of them), its opt state and position.
export const GET = withAdmin(
  async (ctx) => {
    const { userId } = staffMember(ctx);
    const conversationId = String(ctx.params.conversationId);
    const { at } = parseInput(threadQuerySchema, queryObject(ctx.req));
    return adminResult(await getThread({ accountId: ctx.accountId, userId, conversationId, at }));
  },
  { agents: true },
);
