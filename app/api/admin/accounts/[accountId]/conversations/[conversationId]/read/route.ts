import { withAdmin, adminResult } from "@/lib/api/with-admin";
import { parseInput } from "@/lib/api/parse-input";
import { readJson } from "@/lib/api/read-json";
import { readSchema } from "@/lib/conversations/conversation-schema";
import { markConversation } from "@/lib/conversations/manage-conversations";
import { staffMember } from "@/lib/conversations/staff-member";
import { announceRead } from "@/lib/realtime/start-realtime";

export const dynamic = "force-dynamic";

// POST /api/admin/accounts/{accountId}/conversations/{conversationId}/read: {"read": true} marks the thread read
// for the viewer, {"read": false} unread ("Mark unread").
export const POST = withAdmin(
  async (ctx) => {
    const { userId } = staffMember(ctx);
    const { read } = parseInput(readSchema, await readJson(ctx.req));
    const conversationId = String(ctx.params.conversationId);
    const marker = await markConversation({ accountId: ctx.accountId, userId, conversationId, read });
    announceRead(userId, marker);
    return adminResult(marker, true);
  },
  { agents: true },
);
