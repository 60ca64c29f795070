import { withAdmin, adminResult } from "@/lib/api/with-admin";
import { selfOf, startTwoFactorSetup } from "@/lib/auth/two-factor-enrolment";

export const dynamic = "force-dynamic";

// POST /api/admin/accounts/{accountId}/profile/two-factor/setup: a new key for the signed-in user, pending until
// confirmed; answers it as text and as a QR code, this once.
export const POST = withAdmin(async (ctx) => adminResult({ setup: await startTwoFactorSetup(selfOf(ctx)) }, true), {
  agents: true,
  beforeTwoFactor: true,
});
