import { withAdmin, adminResult } from "@/lib/api/with-admin";
import { readDashboard } from "@/lib/dashboard/read-dashboard";

export const dynamic = "force-dynamic";

// GET /api/admin/accounts/{accountId}/dashboard: today's messages by status (in the account's time zone), queue
// depth per number, webhook health and the carrier link, for the portal's dashboard.
export const GET = withAdmin(async ({ accountId }) => adminResult({ ...(await readDashboard(accountId)) }));
