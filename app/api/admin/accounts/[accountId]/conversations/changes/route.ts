import { withAdmin, adminResult } from "@/lib/api/with-admin";
import { parseInput } from "@/lib/api/parse-input";
import { queryObject } from "@/lib/api/parse-input";
import { catchUpQuerySchema } from "@/lib/conversations/conversation-schema";
import { changesAfter } from "@/lib/conversations/thread-messages";
import { MAX_REPLAY } from "@/lib/realtime/change-schema";

export const dynamic = "force-dynamic";

// GET /api/admin/accounts/{accountId}/conversations/changes?after=N: the account's message changes after position
// N (the live view's catch-up, also offered on the socket), or tooOld when more than 10,000 would be replayed.
export const GET = withAdmin(
  async (ctx) => {
    const { after } = parseInput(catchUpQuerySchema, queryObject(ctx.req));
    return adminResult(await changesAfter({ accountId: ctx.accountId, after, limit: MAX_REPLAY }));
  },
  { agents: true },
);
