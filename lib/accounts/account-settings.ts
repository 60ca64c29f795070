import { db } from "../db/client";
import { ApiError } from "../api/api-error";
import { actorLabel, recordAudit, type ChangedBy } from "../audit/audit-trail";
import { ACCOUNT_SETTING_FIELDS, type AccountSettingsInput } from "./settings-schema";

const settingsSelect = {
  id: true,
  name: true,
  timeZone: true,
  rateLimitPerSecond: true,
  bulkShare: true,
  bulkWindowStart: true,
  bulkWindowEnd: true,
  requireTwoFactor: true,
  conversationVisibility: true,
  autoAssign: true,
  agentOpenLimit: true,
  smartEncoding: true,
  createdAt: true,
} as const;

/** The settings an admin sees for the account (never pacing state or secrets). */
export async function getAccountSettings(accountId: string) {
  const account = await db().account.findUnique({ where: { id: accountId }, select: settingsSelect });
  if (!account) throw new ApiError("NotFound", { detail: `no account ${accountId}` });
  return { ...account, createdAt: account.createdAt.toISOString() };
}
export type AccountSettings = Awaited<ReturnType<typeof getAccountSettings>>;

/**
 * Sets the fields given (already checked by settings-schema.ts) and records what changed, old → new, as
 * settings.updated. The delivery worker reads the limits and the bulk window on each pass, so they apply at once.
 */
export async function updateAccountSettings(input: {
  accountId: string;
  changes: AccountSettingsInput;
  by: ChangedBy;
}): Promise<AccountSettings> {
  const updated = await db().$transaction(async (tx) => {
    const before = await tx.account.findUnique({ where: { id: input.accountId }, select: settingsSelect });
    if (!before) throw new ApiError("NotFound", { detail: `no account ${input.accountId}` });
    const data: AccountSettingsInput = {};
    const described: string[] = [];
    for (const field of ACCOUNT_SETTING_FIELDS) {
      const value = input.changes[field];
      if (value === undefined || value === before[field]) continue;
      Object.assign(data, { [field]: value });
      described.push(`${field}: ${JSON.stringify(before[field])} → ${JSON.stringify(value)}`);
    }
    if (described.length === 0) return before;
    if (data.requireTwoFactor === true) await requireOwnTwoFactor(input.by, tx);
    const after = await tx.account.update({ where: { id: input.accountId }, data, select: settingsSelect });
    await recordAudit(
      {
        accountId: input.accountId,
        actor: actorLabel(input.by.actor),
        action: "settings.updated",
        target: before.name,
        detail: described.join("; "),
        ip: input.by.ip,
      },
      tx,
    );
    return after;
  });
  return { ...updated, createdAt: updated.createdAt.toISOString() };
}

/**
 * An admin who requires two-factor of everyone has it on themself first (as GitHub asks of an organisation's
 * owner), so the change never sends its own author to the enrolment page in the middle of their work.
 */
async function requireOwnTwoFactor(by: ChangedBy, tx: Pick<ReturnType<typeof db>, "userTwoFactor">) {
  if (by.actor === "cli" || by.actor.kind !== "user") return;
  const own = await tx.userTwoFactor.findUnique({ where: { userId: by.actor.userId }, select: { enabledAt: true } });
  if (!own?.enabledAt) {
    throw new ApiError("InvalidRequest", {
      detail: "turn on two-factor sign-in for yourself first (on your Profile page), then require it of everyone",
      field: "requireTwoFactor",
    });
  }
}

export async function accountName(accountId: string): Promise<string> {
  const account = await db().account.findUnique({ where: { id: accountId }, select: { name: true } });
  return account?.name ?? "";
}
