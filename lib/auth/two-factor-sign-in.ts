import { z } from "zod";
import { recordAudit } from "../audit/audit-trail";
import { acceptSecondFactor } from "./two-factor-check";
import { TWO_FACTOR_REQUIRED, TWO_FACTOR_WRONG_CODE } from "./two-factor-errors";
import { recordSignInFailure } from "./sign-in-throttle";
import { db } from "../db/client";

// The second step of a portal sign-in, for a user whose email and password were just found right.
//
// Without a code the answer is TwoFactorRequired: it tells that the password was right, but only to someone who
// sent the right password (a wrong one answers as before, CredentialsSignin), as GitHub does. That answer neither
// counts as a failure nor clears the failures counted so far, so password guesses stay throttled, and so do code
// guesses: a wrong code is a failed sign-in (throttle and audit trail) like a wrong password.

export class TwoFactorRefused extends Error {
  constructor(message: typeof TWO_FACTOR_REQUIRED | typeof TWO_FACTOR_WRONG_CODE) {
    super(message);
    this.name = "TwoFactorRefused";
  }
}

const codeField = z.object({ code: z.string().max(100).optional() }).loose();

/**
 * Passes when the user has no two-factor on, or the credentials carry a valid code (which is then used up); throws
 * TwoFactorRefused otherwise. Answers what the sign-in's audit entry should add (a recovery code was used).
 */
export async function checkSignInSecondFactor(input: {
  user: { id: string; email: string; accountId: string };
  credentials: unknown;
  throttleKeys: string[];
  ip: string;
}): Promise<{ detail?: string }> {
  const { user } = input;
  const row = await db().userTwoFactor.findUnique({ where: { userId: user.id }, select: { enabledAt: true } });
  if (!row?.enabledAt) return {};
  const parsed = codeField.safeParse(input.credentials);
  const text = parsed.success ? (parsed.data.code ?? "").trim() : "";
  if (text === "") throw new TwoFactorRefused(TWO_FACTOR_REQUIRED);

  const accepted = await acceptSecondFactor({ userId: user.id, text, recovery: true });
  if (!accepted) {
    const { locked } = await recordSignInFailure(input.throttleKeys);
    await recordAudit({
      accountId: user.accountId,
      actor: "",
      action: "signin.failed",
      target: user.email,
      detail: locked ? "wrong two-factor code; locked" : "wrong two-factor code",
      ip: input.ip,
    });
    throw new TwoFactorRefused(TWO_FACTOR_WRONG_CODE);
  }
  if (accepted.kind !== "recovery") return {};
  const left = accepted.recoveryCodesLeft ?? 0;
  return { detail: `with a recovery code (${left} left)` };
}
