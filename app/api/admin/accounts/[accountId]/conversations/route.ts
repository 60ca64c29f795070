import { withAdmin, adminResult } from "@/lib/api/with-admin";
import { parseInput } from "@/lib/api/parse-input";
import { queryObject } from "@/lib/api/parse-input";
import { conversationFiltersSchema } from "@/lib/conversations/conversation-schema";
import { listConversations } from "@/lib/conversations/manage-conversations";
import { staffMember } from "@/lib/conversations/staff-member";

export const dynamic = "force-dynamic";

// GET /api/admin/accounts/{accountId}/conversations: newest activity first, with the viewer's unread counts.
export const GET = withAdmin(
  async (ctx) => {
    const { userId } = staffMember(ctx);
    const filters = parseInput(conversationFiltersSchema, queryObject(ctx.req));
    return adminResult(await listConversations({ accountId: ctx.accountId, userId, filters }));
  },
  { agents: true },
);
