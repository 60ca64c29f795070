import { withAdmin, adminResult } from "@/lib/api/with-admin";
import { selfOf, twoFactorStatus } from "@/lib/auth/two-factor-enrolment";

export const dynamic = "force-dynamic";

// GET /api/admin/accounts/{accountId}/profile/two-factor: whether the signed-in user has two-factor on (never the key).
export const GET = withAdmin(async (ctx) => adminResult({ twoFactor: await twoFactorStatus(selfOf(ctx)) }), {
  agents: true,
  beforeTwoFactor: true,
});
