import { withAdmin, adminResult } from "@/lib/api/with-admin";
import { listStaff } from "@/lib/conversations/conversation-status";

export const dynamic = "force-dynamic";

// GET /api/admin/accounts/{accountId}/conversations/staff: who a conversation can be assigned to (enabled staff).
export const GET = withAdmin(async (ctx) => adminResult({ staff: await listStaff(ctx.accountId) }), { agents: true });
