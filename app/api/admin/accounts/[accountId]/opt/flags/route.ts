import { withAdmin, adminResult } from "@/lib/api/with-admin";
import { listOptFlags } from "@/lib/opt/manage-opt";

export const dynamic = "force-dynamic";

// GET /api/admin/accounts/{accountId}/opt/flags: inbound texts that may ask to opt out without being a keyword
// (conversationId to filter), for staff to read and act on.
export const GET = withAdmin(async ({ req, accountId }) =>
  adminResult({
    flags: await listOptFlags({ accountId, conversationId: new URL(req.url).searchParams.get("conversationId") }),
  }),
);
