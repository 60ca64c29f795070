import { db } from "../db/client";
import { checkTotp, hashRecoveryCode, readCode, type CodeKind } from "./two-factor-codes";
import { openTotpSecret, recoveryCodeKey, sealTotpSecret } from "./two-factor-secret";

// Accepting a second-factor code for a user: a TOTP code once (its time step is claimed in the same UPDATE that
// checks it is newer than the last one, so two requests with one code cannot both pass), or an unused recovery code,
// used up by the UPDATE that checks it is unused. A key stored in a legacy form is sealed again once read.

export interface AcceptedCode {
  kind: CodeKind;
  /** Recovery codes still unused after this one. */
  recoveryCodesLeft?: number;
}

/**
 * Checks `text` against the user's two-factor key (enabled, or pending its confirmation when `pending`) and, when
 * `recovery`, their recovery codes. Answers what was accepted, or null for a wrong, used or malformed code.
 */
export async function acceptSecondFactor(input: {
  userId: string;
  text: string;
  recovery: boolean;
  pending?: boolean;
  now?: Date;
}): Promise<AcceptedCode | null> {
  const now = input.now ?? new Date();
  const read = readCode(input.text);
  if (!read) return null;
  const row = await db().userTwoFactor.findUnique({ where: { userId: input.userId } });
  if (!row || (row.enabledAt === null) !== (input.pending ?? false)) return null;

  if (read.kind === "totp") {
    const opened = openTotpSecret(row.secret, input.userId);
    if (!opened) return null;
    if (opened.reseal) await resealTotpSecret(input.userId, row.secret, opened.plain);
    const secret = opened.plain;
    const step = await checkTotp({ secret, code: read.code, now, lastTimeStep: row.lastTimeStep });
    if (step === null) return null;
    const claimed = await db().userTwoFactor.updateMany({
      where: { userId: input.userId, OR: [{ lastTimeStep: null }, { lastTimeStep: { lt: step } }] },
      data: { lastTimeStep: step },
    });
    return claimed.count === 1 ? { kind: "totp" } : null;
  }

  if (!input.recovery || row.enabledAt === null) return null;
  const used = await db().twoFactorRecoveryCode.updateMany({
    where: { userId: input.userId, hash: hashRecoveryCode(read.code, recoveryCodeKey()), usedAt: null },
    data: { usedAt: now },
  });
  if (used.count !== 1) return null;
  const left = await db().twoFactorRecoveryCode.count({ where: { userId: input.userId, usedAt: null } });
  return { kind: "recovery", recoveryCodesLeft: left };
}

/**
 * Stores a key read in a legacy form (or under a previous PARLEY_SECRET_KEY) sealed under the current key. Only if
 * the row still holds what was read: a new enrolment in between is not overwritten.
 */
async function resealTotpSecret(userId: string, stored: string, plain: string): Promise<void> {
  await db().userTwoFactor.updateMany({
    where: { userId, secret: stored },
    data: { secret: sealTotpSecret(plain, userId) },
  });
}
