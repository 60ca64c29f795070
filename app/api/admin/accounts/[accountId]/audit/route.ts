import { withAdmin, adminResult } from "@/lib/api/with-admin";
import { parseInput, queryObject } from "@/lib/api/parse-input";
import { listAudit } from "@/lib/audit/audit-trail";
import { auditQuery } from "@/lib/audit/audit-query";

export const dynamic = "force-dynamic";

// GET /api/admin/accounts/{accountId}/audit?action&start&count: the account's audit trail, newest first; `action`
// is a prefix (key., signin.failed).
export const GET = withAdmin(async ({ req, accountId }) => {
  const query = parseInput(auditQuery, queryObject(req));
  const { total, events } = await listAudit({ accountId, ...query });
  return adminResult({ total, start: query.start, count: query.count, events });
});
