import { withAdmin, adminResult } from "@/lib/api/with-admin";
import { parseInput } from "@/lib/api/parse-input";
import { readJson } from "@/lib/api/read-json";
import { snoozeSchema } from "@/lib/conversations/conversation-schema";
import { snoozeConversation } from "@/lib/conversations/conversation-status";
import { inboxActor } from "@/lib/conversations/inbox-actor";

export const dynamic = "force-dynamic";

// POST /api/admin/accounts/{accountId}/conversations/{conversationId}/snooze: {"until": "<ISO 8601>"}; the next
// inbound message ends the snooze.
export const POST = withAdmin(
  async (ctx) => {
    const actor = await inboxActor(ctx);
    const { until } = parseInput(snoozeSchema, await readJson(ctx.req));
    const conversationId = String(ctx.params.conversationId);
    return adminResult(await snoozeConversation({ accountId: ctx.accountId, actor, conversationId, until }), true);
  },
  { agents: true },
);
