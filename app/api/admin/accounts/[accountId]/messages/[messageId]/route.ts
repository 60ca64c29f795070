import { ApiError } from "@/lib/api/api-error";
import { withAdmin, adminResult } from "@/lib/api/with-admin";
import { getMessageDetail } from "@/lib/messaging/message-detail";

export const dynamic = "force-dynamic";

// GET /api/admin/accounts/{accountId}/messages/{messageId}: one message and its SDR timeline. Another account's
// message is as unknown as a missing one (404 MessageNotFound). Agents may read.
export const GET = withAdmin(
  async ({ accountId, params }) => {
    const detail = await getMessageDetail({ accountId, messageId: String(params.messageId) });
    if (!detail) throw new ApiError("MessageNotFound");
    return adminResult({ ...detail });
  },
  { agents: true },
);
