import { withAdmin, adminResult } from "@/lib/api/with-admin";
import { parseInput } from "@/lib/api/parse-input";
import { readJson } from "@/lib/api/read-json";
import { updateCannedReplySchema } from "@/lib/canned-replies/canned-reply-schema";
import { cannedReplyViewer, deleteCannedReply, updateCannedReply } from "@/lib/canned-replies/manage-canned-replies";

export const dynamic = "force-dynamic";

// PATCH /api/admin/accounts/{accountId}/canned-replies/{id}: change {shortcut?, text?, scope?}. Agents change their
// own replies only; another's personal reply (or another account's) is 404.
export const PATCH = withAdmin(
  async (ctx) => {
    const input = parseInput(updateCannedReplySchema, await readJson(ctx.req));
    const id = String(ctx.params.cannedReplyId);
    return adminResult({ cannedReply: await updateCannedReply(cannedReplyViewer(ctx), id, input) }, true);
  },
  { agents: true },
);

// DELETE /api/admin/accounts/{accountId}/canned-replies/{id}
export const DELETE = withAdmin(
  async (ctx) => {
    const id = String(ctx.params.cannedReplyId);
    return adminResult({ ...(await deleteCannedReply(cannedReplyViewer(ctx), id)), deleted: true }, true);
  },
  { agents: true },
);
