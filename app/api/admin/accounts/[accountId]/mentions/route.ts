import { withAdmin, adminResult } from "@/lib/api/with-admin";
import { staffMember } from "@/lib/conversations/staff-member";
import { unreadMentions } from "@/lib/notes/manage-notes";

export const dynamic = "force-dynamic";

// GET /api/admin/accounts/{accountId}/mentions: the viewer's unread @mentions in notes (count and the newest 20).
export const GET = withAdmin(
  async (ctx) => {
    const { userId } = staffMember(ctx);
    return adminResult(await unreadMentions(ctx.accountId, userId));
  },
  { agents: true },
);
