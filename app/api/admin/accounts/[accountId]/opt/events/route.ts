import { withAdmin, adminResult } from "@/lib/api/with-admin";
import { exportOptEventsCsv, listOptEvents, readEventQuery } from "@/lib/opt/manage-opt";

export const dynamic = "force-dynamic";

// GET /api/admin/accounts/{accountId}/opt/events: the opt audit trail (number, action, since, until, start, count);
// with format=csv, the whole filtered trail as a CSV download.
export const GET = withAdmin(async ({ req, accountId }) => {
  const query = new URL(req.url).searchParams;
  const filter = readEventQuery(accountId, query);
  if (query.get("format") === "csv") {
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
