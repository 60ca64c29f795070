import { withAdmin, adminResult } from "@/lib/api/with-admin";
import { webhookHealth } from "@/lib/webhooks/webhook-health";

export const dynamic = "force-dynamic";

// GET /api/admin/accounts/{accountId}/webhook/health: the last 24 h success rate, the last error, the backlog.
export const GET = withAdmin(async ({ accountId }) => adminResult({ health: await webhookHealth(accountId) }));
