import { withAdmin, adminResult } from "@/lib/api/with-admin";
import { sendTestEvent } from "@/lib/webhooks/send-test-event";

export const dynamic = "force-dynamic";

// POST /api/admin/accounts/{accountId}/webhook/test: posts a signed sample event to the saved URL now and answers
// what the receiver said (HTTP status, latency, the start of its body, or why no answer came).
export const POST = withAdmin(async ({ accountId }) => adminResult({ test: await sendTestEvent({ accountId }) }));
