import QRCode from "qrcode";
import { ApiError } from "../api/api-error";
import type { AdminActor } from "../api/admin-actor";
import { actorLabel, recordAudit, type AuditAction, type ChangedBy } from "../audit/audit-trail";
import { db } from "../db/client";
import { uuidv7 } from "../db/ids";
import { disconnectSessions } from "../realtime/disconnect-sessions";
import { revokeSessions, sessionsEndedInWords } from "./end-sessions";
import { recordSignInFailure, refuseWhileThrottled, throttleKeys } from "./sign-in-throttle";
import { acceptSecondFactor } from "./two-factor-check";
import { groupedSecret, hashRecoveryCode, newRecoveryCodes, newTotpSecret, totpUri } from "./two-factor-codes";
import { recoveryCodeKey, sealTotpSecret } from "./two-factor-secret";

// A portal user turning two-factor sign-in on and off for themself (the Profile page), and an admin or the operator
// resetting it for a user who lost their phone. The key leaves the server only in the answer to the user's own
// setup request; recovery codes only in the answer that makes them.

const ISSUER = "Parley";

export interface SignedInUser {
  id: string;
  email: string;
  accountId: string;
  /** The portal session the user acts from: the one session that stays when two-factor is turned on. */
  sessionId: string;
}

export interface TwoFactorStatus {
  /** off: never set up (or reset); pending: a key was shown, not yet confirmed with a code; on: asked at sign-in. */
  state: "off" | "pending" | "on";
  enabledAt: string | null;
  recoveryCodesLeft: number;
  /** The account requires two-factor sign-in of every user. */
  required: boolean;
}

export async function twoFactorStatus(user: SignedInUser): Promise<TwoFactorStatus> {
  const [row, left, account] = await Promise.all([
    db().userTwoFactor.findUnique({ where: { userId: user.id }, select: { enabledAt: true } }),
    db().twoFactorRecoveryCode.count({ where: { userId: user.id, usedAt: null } }),
    db().account.findUnique({ where: { id: user.accountId }, select: { requireTwoFactor: true } }),
  ]);
  return {
    state: !row ? "off" : row.enabledAt ? "on" : "pending",
    enabledAt: row?.enabledAt?.toISOString() ?? null,
    recoveryCodesLeft: row?.enabledAt ? left : 0,
    required: account?.requireTwoFactor ?? false,
  };
}

/**
 * Makes a new key for the user, pending until confirmed with a code from it; a pending key made before is
 * replaced. Answers the key (as text for typing in, and as the QR code an app scans, an SVG data URL).
 */
export async function startTwoFactorSetup(user: SignedInUser) {
  const existing = await db().userTwoFactor.findUnique({ where: { userId: user.id }, select: { enabledAt: true } });
  if (existing?.enabledAt) {
    throw new ApiError("InvalidRequest", { detail: "two-factor sign-in is on already; turn it off first" });
  }
  const secret = newTotpSecret();
  const stored = sealTotpSecret(secret, user.id);
  await db().userTwoFactor.upsert({
    where: { userId: user.id },
    create: { userId: user.id, secret: stored, createdAt: new Date() },
    update: { secret: stored, enabledAt: null, lastTimeStep: null, createdAt: new Date() },
  });
  const uri = totpUri({ secret, label: user.email, issuer: ISSUER });
  const svg = await QRCode.toString(uri, { type: "svg", errorCorrectionLevel: "M", margin: 2 });
  return {
    key: groupedSecret(secret),
    uri,
    qrCode: `data:image/svg+xml;base64,${Buffer.from(svg).toString("base64")}`,
  };
}

/**
 * Checks a code the user typed on the Profile page. Wrong codes count against the sign-in throttle of the user's
 * email and address, so a session left open cannot be used to guess codes faster than a sign-in could.
 */
async function requireCode(user: SignedInUser, code: string, ip: string, options: { pending?: boolean }) {
  const keys = throttleKeys(user.email, ip);
  await refuseWhileThrottled(keys, "wrong codes", "code");
  const accepted = await acceptSecondFactor({
    userId: user.id,
    text: code,
    recovery: !options.pending,
    pending: options.pending,
  });
  if (!accepted) {
    await recordSignInFailure(keys);
    throw new ApiError("InvalidRequest", {
      detail: "the authentication code is wrong or was used already: enter the current code from your app",
      field: "code",
    });
  }
}

/** Stores fresh recovery codes in place of all earlier ones; answers them for showing once. */
async function replaceRecoveryCodes(
  userId: string,
  tx: Pick<ReturnType<typeof db>, "twoFactorRecoveryCode">,
): Promise<string[]> {
  const codes = newRecoveryCodes();
  const key = recoveryCodeKey();
  const now = new Date();
  await tx.twoFactorRecoveryCode.deleteMany({ where: { userId } });
  await tx.twoFactorRecoveryCode.createMany({
    data: codes.map((code) => ({ id: uuidv7(), userId, hash: hashRecoveryCode(code, key), createdAt: now })),
  });
  return codes;
}

/** Confirms the pending key with a code from it: two-factor is on from now, and here are the recovery codes. */
export async function turnOnTwoFactor(input: { user: SignedInUser; code: string; ip: string }) {
  const { user } = input;
  const row = await db().userTwoFactor.findUnique({ where: { userId: user.id }, select: { enabledAt: true } });
  if (!row) throw new ApiError("InvalidRequest", { detail: "set up two-factor first: no key was made for you yet" });
  if (row.enabledAt) throw new ApiError("InvalidRequest", { detail: "two-factor sign-in is on already" });
  await requireCode(user, input.code, input.ip, { pending: true });
  // Every other session of the user ends: one opened with the password alone (by whoever else knew it) must not
  // outlive the second factor that now guards the sign-in.
  const { codes, ended } = await db().$transaction(async (tx) => {
    await tx.userTwoFactor.update({ where: { userId: user.id }, data: { enabledAt: new Date() } });
    const codes = await replaceRecoveryCodes(user.id, tx);
    const ended = await revokeSessions({ userId: user.id, id: { not: user.sessionId } }, tx);
    await recordAudit(
      {
        accountId: user.accountId,
        actor: `user:${user.email}`,
        action: "twofactor.enabled",
        target: user.email,
        detail: endedInWords(ended.length, { other: true }),
        ip: input.ip,
      },
      tx,
    );
    return { codes, ended };
  });
  disconnectSessions(ended);
  return { recoveryCodes: codes, endedSessions: ended.length };
}

/** The audit detail of sessions a two-factor change ended: nothing when none was open. */
function endedInWords(count: number, options: { other?: boolean } = {}): string {
  return count === 0 ? "" : sessionsEndedInWords(count, options);
}

type AuditClient = Parameters<typeof recordAudit>[1];

/** A user's change to their own two-factor sign-in, in the account's audit trail (inside the change's transaction). */
function auditOwnChange(user: SignedInUser, action: AuditAction, ip: string, tx: AuditClient): Promise<void> {
  return recordAudit({ accountId: user.accountId, actor: `user:${user.email}`, action, target: user.email, ip }, tx);
}

async function requireOn(user: SignedInUser) {
  const row = await db().userTwoFactor.findUnique({ where: { userId: user.id }, select: { enabledAt: true } });
  if (!row?.enabledAt) throw new ApiError("InvalidRequest", { detail: "two-factor sign-in is not on" });
}

/** Turns two-factor off, given a current code (or a recovery code); not while the account requires it. */
export async function turnOffTwoFactor(input: { user: SignedInUser; code: string; ip: string }) {
  const { user } = input;
  await requireOn(user);
  const account = await db().account.findUnique({ where: { id: user.accountId }, select: { requireTwoFactor: true } });
  if (account?.requireTwoFactor) {
    throw new ApiError("InvalidRequest", {
      detail: "the account requires two-factor sign-in: it cannot be turned off (an admin can reset it)",
    });
  }
  await requireCode(user, input.code, input.ip, {});
  await db().$transaction(async (tx) => {
    await tx.twoFactorRecoveryCode.deleteMany({ where: { userId: user.id } });
    await tx.userTwoFactor.delete({ where: { userId: user.id } });
    await auditOwnChange(user, "twofactor.disabled", input.ip, tx);
  });
}

/** New recovery codes in place of the old ones (used or not), given a current code. */
export async function regenerateRecoveryCodes(input: { user: SignedInUser; code: string; ip: string }) {
  const { user } = input;
  await requireOn(user);
  await requireCode(user, input.code, input.ip, {});
  const recoveryCodes = await db().$transaction(async (tx) => {
    const codes = await replaceRecoveryCodes(user.id, tx);
    await auditOwnChange(user, "twofactor.recovery_codes_regenerated", input.ip, tx);
    return codes;
  });
  return { recoveryCodes };
}

/**
 * An admin of the account (or the operator's CLI) removes a user's two-factor, for a lost phone: the user signs in
 * with the password alone and sets it up again (at once, when the account requires it). Recorded as
 * twofactor.reset; a user without two-factor is refused, so the trail only has resets that did something.
 */
export async function resetTwoFactor(input: { accountId: string; userId: string; by: ChangedBy }) {
  const user = await db().user.findFirst({
    where: { id: input.userId, accountId: input.accountId },
    select: { id: true, email: true, twoFactor: { select: { enabledAt: true } } },
  });
  if (!user) throw new ApiError("NotFound", { detail: `no user ${input.userId} in this account` });
  if (!user.twoFactor) {
    throw new ApiError("InvalidRequest", { detail: `${user.email} has no two-factor sign-in to reset` });
  }
  // The user's sessions end too: whoever holds the lost phone may hold an open browser session as well, and the
  // user signs in again (and enrols again, where the account requires it).
  const ended = await db().$transaction(async (tx) => {
    await tx.twoFactorRecoveryCode.deleteMany({ where: { userId: user.id } });
    await tx.userTwoFactor.delete({ where: { userId: user.id } });
    // An admin resetting their own keeps the session they act from.
    const actor = input.by.actor;
    const keep = actor !== "cli" && actor.kind === "user" && actor.userId === user.id ? actor.sessionId : null;
    const ended = await revokeSessions(keep ? { userId: user.id, id: { not: keep } } : { userId: user.id }, tx);
    const detail = [user.twoFactor?.enabledAt ? "" : "setup not finished", endedInWords(ended.length)];
    await recordAudit(
      {
        accountId: input.accountId,
        actor: actorLabel(input.by.actor),
        action: "twofactor.reset",
        target: user.email,
        detail: detail.filter(Boolean).join("; "),
        ip: input.by.ip,
      },
      tx,
    );
    return ended;
  });
  disconnectSessions(ended);
  return { email: user.email, endedSessions: ended.length };
}

/** The user acting on their own two-factor: a portal session only (an API key has no person behind it). */
export function selfOf(input: { accountId: string; actor: AdminActor }): SignedInUser {
  if (input.actor.kind !== "user") {
    throw new ApiError("Forbidden", { detail: "two-factor sign-in is a portal user's own: sign in to the portal" });
  }
  return {
    id: input.actor.userId,
    email: input.actor.email,
    accountId: input.accountId,
    sessionId: input.actor.sessionId,
  };
}

/** The operator's reset (`parley user reset-2fa <email>`), for an admin who lost their own phone. */
export async function resetTwoFactorByEmail(email: string, by: ChangedBy) {
  const user = await db().user.findUnique({
    where: { email: email.trim().toLowerCase() },
    select: { id: true, accountId: true },
  });
  if (!user) throw new ApiError("NotFound", { detail: `no portal user ${email.trim()}` });
  const reset = await resetTwoFactor({ accountId: user.accountId, userId: user.id, by });
  return { ...reset, accountId: user.accountId };
}
