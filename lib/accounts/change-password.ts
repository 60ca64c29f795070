import { db } from "../db/client";
import { ApiError } from "../api/api-error";
import { recordAudit } from "../audit/audit-trail";
import { hashPassword, verifyPassword } from "../auth/passwords";
import { revokeSessions, sessionsEndedInWords } from "../auth/end-sessions";
import { clearSignInFailures, recordSignInFailure, refuseWhileThrottled, throttleKeys } from "../auth/sign-in-throttle";
import { disconnectSessions } from "../realtime/disconnect-sessions";
import type { PasswordChangeInput } from "./user-schema";

/**
 * A signed-in user changes their own password on the Profile page. The current password is asked for, so a
 * borrowed session cannot lock its owner out; wrong guesses count against the same throttle as sign-ins (a stolen
 * cookie is no faster way to guess). Every other session of the user ends (someone who knew the old password is
 * signed out); the one making the change stays.
 */
export async function changePassword(input: {
  accountId: string;
  userId: string;
  currentSessionId: string;
  change: PasswordChangeInput;
  ip: string;
}): Promise<{ endedSessions: number }> {
  const user = await db().user.findFirst({
    where: { id: input.userId, accountId: input.accountId, disabledAt: null },
    select: { id: true, email: true, passwordHash: true },
  });
  if (!user) throw new ApiError("NotFound", { detail: `no user ${input.userId} in this account` });
  const keys = throttleKeys(user.email, input.ip);
  await refuseWhileThrottled(keys, "wrong passwords");
  if (!(await verifyPassword(input.change.currentPassword, user.passwordHash))) {
    await recordSignInFailure(keys);
    throw new ApiError("InvalidRequest", {
      detail: "currentPassword: is not your current password",
      field: "currentPassword",
    });
  }
  await clearSignInFailures(user.email);
  const passwordHash = await hashPassword(input.change.newPassword);
  const ended = await db().$transaction(async (tx) => {
    await tx.user.update({ where: { id: user.id }, data: { passwordHash } });
    const revoked = await revokeSessions({ userId: user.id, id: { not: input.currentSessionId } }, tx);
    await recordAudit(
      {
        accountId: input.accountId,
        actor: `user:${user.email}`,
        action: "password.changed",
        target: user.email,
        detail: sessionsEndedInWords(revoked.length, { other: true }),
        ip: input.ip,
      },
      tx,
    );
    return revoked;
  });
  disconnectSessions(ended);
  return { endedSessions: ended.length };
}
