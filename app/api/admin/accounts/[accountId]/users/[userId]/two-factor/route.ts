import { withAdmin, adminResult } from "@/lib/api/with-admin";
import { resetTwoFactor } from "@/lib/auth/two-factor-enrolment";

export const dynamic = "force-dynamic";

// DELETE /api/admin/accounts/{accountId}/users/{userId}/two-factor: resets a user's two-factor (a lost phone); they
// sign in with their password and set it up again.
export const DELETE = withAdmin(async ({ accountId, actor, ip, params }) => {
  const reset = await resetTwoFactor({ accountId, userId: String(params.userId), by: { actor, ip } });
  return adminResult({ reset }, true);
});
