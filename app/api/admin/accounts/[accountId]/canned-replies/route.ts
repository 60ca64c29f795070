import { withAdmin, adminResult } from "@/lib/api/with-admin";
import { parseInput } from "@/lib/api/parse-input";
import { readJson } from "@/lib/api/read-json";
import { createCannedReplySchema } from "@/lib/canned-replies/canned-reply-schema";
import { cannedReplyViewer, createCannedReply, listCannedReplies } from "@/lib/canned-replies/manage-canned-replies";

export const dynamic = "force-dynamic";

// GET /api/admin/accounts/{accountId}/canned-replies: the account-wide canned replies and the viewer's own.
export const GET = withAdmin(
  async (ctx) => adminResult({ cannedReplies: await listCannedReplies(cannedReplyViewer(ctx)) }),
  { agents: true },
);

// POST /api/admin/accounts/{accountId}/canned-replies: {shortcut, text, scope?}; an admin's is account-wide unless
// scope is "personal", an agent's is always personal.
export const POST = withAdmin(
  async (ctx) => {
    const input = parseInput(createCannedReplySchema, await readJson(ctx.req));
    return adminResult({ cannedReply: await createCannedReply(cannedReplyViewer(ctx), input) }, true);
  },
  { agents: true },
);
