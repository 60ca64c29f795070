import { withAdmin, adminResult } from "@/lib/api/with-admin";
import { readJson } from "@/lib/api/read-json";
import { parseInput } from "@/lib/api/parse-input";
import { selfOf, turnOnTwoFactor } from "@/lib/auth/two-factor-enrolment";
import { twoFactorCodeInput } from "@/lib/auth/two-factor-schema";

export const dynamic = "force-dynamic";

// POST /api/admin/accounts/{accountId}/profile/two-factor/enable {code}: confirms the pending key with a code from
// it; answers the recovery codes, this once, and how many of the user's other sessions it ended.
export const POST = withAdmin(
  async (ctx) => {
    const { code } = parseInput(twoFactorCodeInput, await readJson(ctx.req));
    const { recoveryCodes, endedSessions } = await turnOnTwoFactor({ user: selfOf(ctx), code, ip: ctx.ip });
    return adminResult({ recoveryCodes, endedSessions }, true);
  },
  { agents: true, beforeTwoFactor: true },
);
