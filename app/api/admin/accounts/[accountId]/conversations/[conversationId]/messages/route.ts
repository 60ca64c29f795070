import { withAdmin, adminResult } from "@/lib/api/with-admin";
import { parseInput, queryObject } from "@/lib/api/parse-input";
import { readJson } from "@/lib/api/read-json";
import { olderQuerySchema, replySchema } from "@/lib/conversations/conversation-schema";
import { getOlderMessages, sendReply } from "@/lib/conversations/manage-conversations";
import { staffMember } from "@/lib/conversations/staff-member";

export const dynamic = "force-dynamic";

// POST /api/admin/accounts/{accountId}/conversations/{conversationId}/messages: a staff member's reply, sent
// through the API's send path; the answer is its messageInfo entry (accepted, or rejected with the reason).
export const POST = withAdmin(
  async (ctx) => {
    const { userId } = staffMember(ctx);
    const input = parseInput(replySchema, await readJson(ctx.req));
    const conversationId = String(ctx.params.conversationId);
    const info = await sendReply({
      accountId: ctx.accountId,
      userId,
      conversationId,
      ...input,
      requestId: ctx.requestId,
    });
    return adminResult({ message: info }, true);
  },
  { agents: true },
);

// GET /api/admin/accounts/{accountId}/conversations/{conversationId}/messages?before=messageId: the page of the
// thread's messages before that one (staff scrolling up), oldest first, and whether there are older ones.
export const GET = withAdmin(
  async (ctx) => {
    const { userId } = staffMember(ctx);
    const { before } = parseInput(olderQuerySchema, queryObject(ctx.req));
    const conversationId = String(ctx.params.conversationId);
    return adminResult(await getOlderMessages({ accountId: ctx.accountId, userId, conversationId, before }));
  },
  { agents: true },
);
