import { db } from "../db/client";
import { ApiError } from "../api/api-error";
import { actorLabel, recordAudit, type ChangedBy } from "../audit/audit-trail";
import { ACCOUNT_SETTING_FIELDS, type AccountSettingsInput } from "./settings-schema";
import { knownCountries } from "../guard/destination-facts";

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
  allowedCountries: true,
  dailyMessageLimit: true,
  dailySegmentLimit: true,
  burstHoldThreshold: true,
  createdAt: true,
} as const;

type SettingsRow = { allowedCountries: string; createdAt: Date } & Record<string, unknown>;

/** A settings row as the API shows it: allowedCountries as a list ([] the countries of the account's numbers). */
function shown<T extends SettingsRow>(row: T) {
  const { allowedCountries, createdAt, ...rest } = row;
  return {
    ...rest,
    allowedCountries: allowedCountries === "" ? [] : allowedCountries.split(","),
    createdAt: createdAt.toISOString(),
  };
}

/** The stored form of an allowed-countries list, every code checked against the numbering plans Parley knows. */
function storedCountries(list: string[]): string {
  const known = knownCountries();
  const unknown = list.filter((c) => c !== "*" && !known.has(c));
  if (unknown.length > 0) {
    throw new ApiError("InvalidRequest", {
      detail: `'allowedCountries' has ${unknown.join(", ")}, which is not a country code Parley knows (ISO 3166, such as US or GB)`,
      field: "allowedCountries",
    });
  }
  return [...new Set(list)].sort().join(",");
}

/** The settings an admin sees for the account (never pacing state or secrets). */
export async function getAccountSettings(accountId: string) {
  const account = await db().account.findUnique({ where: { id: accountId }, select: settingsSelect });
  if (!account) throw new ApiError("NotFound", { detail: `no account ${accountId}` });
  return shown(account);
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
    const data: Record<string, unknown> = {};
    const described: string[] = [];
    const changes: Record<string, unknown> = { ...input.changes };
    if (input.changes.allowedCountries) changes.allowedCountries = storedCountries(input.changes.allowedCountries);
    for (const field of ACCOUNT_SETTING_FIELDS) {
      const value = changes[field];
      if (value === undefined || value === before[field]) continue;
      Object.assign(data, { [field]: value });
      described.push(`${field}: ${JSON.stringify(before[field])} → ${JSON.stringify(value)}`);
    }
    if (described.length === 0) return before;
    if (data.requireTwoFactor === true) await requireOwnTwoFactor(input.by, tx);
    const after = await tx.account.update({
      where: { id: input.accountId },
      data: data as Parameters<typeof tx.account.update>[0]["data"],
      select: settingsSelect,
    });
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
  return shown(updated);
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
