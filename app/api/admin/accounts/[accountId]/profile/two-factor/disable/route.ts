import { withAdmin, adminResult } from "@/lib/api/with-admin";
import { readJson } from "@/lib/api/read-json";
import { parseInput } from "@/lib/api/parse-input";
import { selfOf, turnOffTwoFactor } from "@/lib/auth/two-factor-enrolment";
import { twoFactorCodeInput } from "@/lib/auth/two-factor-schema";

export const dynamic = "force-dynamic";

// POST /api/admin/accounts/{accountId}/profile/two-factor/disable {code}: turns two-factor off with a current code;
// refused while the account requires it.
export const POST = withAdmin(
  async (ctx) => {
    const { code } = parseInput(twoFactorCodeInput, await readJson(ctx.req));
    await turnOffTwoFactor({ user: selfOf(ctx), code, ip: ctx.ip });
    return adminResult({ twoFactor: { state: "off" } }, true);
  },
  { agents: true, beforeTwoFactor: true },
);
