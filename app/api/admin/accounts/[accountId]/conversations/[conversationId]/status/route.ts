import { withAdmin, adminResult } from "@/lib/api/with-admin";
import { parseInput } from "@/lib/api/parse-input";
import { readJson } from "@/lib/api/read-json";
import { statusSchema } from "@/lib/conversations/conversation-schema";
import { setConversationStatus } from "@/lib/conversations/conversation-status";
import { inboxActor } from "@/lib/conversations/inbox-actor";

export const dynamic = "force-dynamic";

// PATCH /api/admin/accounts/{accountId}/conversations/{conversationId}/status: {"status": "resolved" | "open"}.
export const PATCH = withAdmin(
  async (ctx) => {
    const actor = await inboxActor(ctx);
    const { status } = parseInput(statusSchema, await readJson(ctx.req));
    const conversationId = String(ctx.params.conversationId);
    return adminResult(await setConversationStatus({ accountId: ctx.accountId, actor, conversationId, status }), true);
  },
  { agents: true },
);
