import { withAdmin, adminResult } from "@/lib/api/with-admin";
import { parseInput, queryObject } from "@/lib/api/parse-input";
import { searchQuerySchema } from "@/lib/conversations/conversation-schema";
import { searchConversations } from "@/lib/conversations/search-conversations";
import { staffMember } from "@/lib/conversations/staff-member";

export const dynamic = "force-dynamic";

// GET /api/admin/accounts/{accountId}/conversations/search?q=: messages whose text holds q (newest first, each with
// the words around the match) and conversations whose phone number holds the digits of q.
export const GET = withAdmin(
  async (ctx) => {
    staffMember(ctx);
    const { q } = parseInput(searchQuerySchema, queryObject(ctx.req));
    return adminResult(await searchConversations({ accountId: ctx.accountId, q }));
  },
  { agents: true },
);
