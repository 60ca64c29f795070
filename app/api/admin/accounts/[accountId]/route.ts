import { withAdmin, adminResult } from "@/lib/api/with-admin";
import { readJson } from "@/lib/api/read-json";
import { parseInput } from "@/lib/api/parse-input";
import { getAccountSettings, updateAccountSettings } from "@/lib/accounts/account-settings";
import { accountSettingsInput } from "@/lib/accounts/settings-schema";
import { forgetSendSettings } from "@/lib/guard/send-settings";

export const dynamic = "force-dynamic";

// GET /api/admin/accounts/{accountId}: the account's name, time zone and sending limits.
export const GET = withAdmin(async ({ accountId }) => adminResult({ account: await getAccountSettings(accountId) }));

// PUT /api/admin/accounts/{accountId}: any of name, timeZone, rateLimitPerSecond, bulkWindowStart, bulkWindowEnd,
// bulkShare, requireTwoFactor, conversationVisibility, autoAssign, agentOpenLimit, smartEncoding, and the guard
// rails allowedCountries, dailyMessageLimit, dailySegmentLimit, burstHoldThreshold; the fields left out keep theirs.
export const PUT = withAdmin(async ({ req, accountId, actor, ip }) => {
  const changes = parseInput(accountSettingsInput, await readJson(req));
  const account = await updateAccountSettings({ accountId, changes, by: { actor, ip } });
  // This process's sends use the new settings at once (others within API_KEY_CACHE_SECONDS).
  forgetSendSettings(accountId);
  return adminResult({ account }, true);
});
