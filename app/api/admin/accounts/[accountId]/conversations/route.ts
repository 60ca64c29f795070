import { withAdmin, adminResult } from "@/lib/api/with-admin";
import { parseInput } from "@/lib/api/parse-input";
import { queryObject } from "@/lib/api/parse-input";
import { readJson } from "@/lib/api/read-json";
import { conversationFiltersSchema, startConversationSchema } from "@/lib/conversations/conversation-schema";
import { listConversations, startConversation } from "@/lib/conversations/manage-conversations";
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

// POST /api/admin/accounts/{accountId}/conversations: a staff member starts a conversation, {from, to, body, media,
// clientId}; the answer is {conversationId, message} (the conversation it opened, or the one already there).
export const POST = withAdmin(
  async (ctx) => {
    const { userId } = staffMember(ctx);
    const input = parseInput(startConversationSchema, await readJson(ctx.req));
    return adminResult(
      await startConversation({ accountId: ctx.accountId, userId, ...input, requestId: ctx.requestId }),
      true,
    );
  },
  { agents: true },
);
