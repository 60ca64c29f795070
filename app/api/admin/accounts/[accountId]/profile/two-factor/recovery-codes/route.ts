import { withAdmin, adminResult } from "@/lib/api/with-admin";
import { readJson } from "@/lib/api/read-json";
import { parseInput } from "@/lib/api/parse-input";
import { regenerateRecoveryCodes, selfOf } from "@/lib/auth/two-factor-enrolment";
import { twoFactorCodeInput } from "@/lib/auth/two-factor-schema";

export const dynamic = "force-dynamic";

// POST /api/admin/accounts/{accountId}/profile/two-factor/recovery-codes {code}: ten new recovery codes in place of
// the old ones, given a current code; answered this once.
export const POST = withAdmin(
  async (ctx) => {
    const { code } = parseInput(twoFactorCodeInput, await readJson(ctx.req));
    const { recoveryCodes } = await regenerateRecoveryCodes({ user: selfOf(ctx), code, ip: ctx.ip });
    return adminResult({ recoveryCodes }, true);
  },
  { agents: true, beforeTwoFactor: true },
);
