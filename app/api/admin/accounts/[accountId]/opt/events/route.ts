import { withAdmin, adminResult } from "@/lib/api/with-admin";
import { queryObject } from "@/lib/api/parse-input";
import { exportOptEventsCsv, listOptEvents, readEventQuery } from "@/lib/opt/manage-opt";

export const dynamic = "force-dynamic";

// GET /api/admin/accounts/{accountId}/opt/events: the opt audit trail (number, action, source, since, until, start,
// count); with format=csv, the whole filtered trail as a CSV download.
export const GET = withAdmin(async ({ req, accountId }) => {
  const { format, ...filter } = readEventQuery(accountId, queryObject(req));
  if (format === "csv") {
    return new Response(await exportOptEventsCsv(filter), {
      headers: {
        "content-type": "text/csv; charset=utf-8",
        "content-disposition": `attachment; filename="opt-events-${accountId}.csv"`,
        "cache-control": "no-store",
      },
    });
  }
  return adminResult(await listOptEvents(filter));
});
