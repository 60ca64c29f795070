import { withAdmin, adminResult } from "@/lib/api/with-admin";
import { getAccountSettings } from "@/lib/accounts/account-settings";

export const dynamic = "force-dynamic";

// GET /api/admin/accounts/{accountId}: the account's name, time zone and sending limits.
export const GET = withAdmin(async ({ accountId }) => adminResult({ account: await getAccountSettings(accountId) }));
