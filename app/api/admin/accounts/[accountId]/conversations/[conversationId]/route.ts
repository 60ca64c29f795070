import { withAdmin, adminResult } from "@/lib/api/with-admin";
import { getThread } from "@/lib/conversations/manage-conversations";
import { staffMember } from "@/lib/conversations/staff-member";

export const dynamic = "force-dynamic";

// GET /api/admin/accounts/{accountId}/conversations/{conversationId}: the thread, its opt state and position.
export const GET = withAdmin(
  async (ctx) => {
    const { userId } = staffMember(ctx);
    const conversationId = String(ctx.params.conversationId);
    return adminResult(await getThread({ accountId: ctx.accountId, userId, conversationId }));
  },
  { agents: true },
);
