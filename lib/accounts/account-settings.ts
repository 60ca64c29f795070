import { db } from "../db/client";
import { ApiError } from "../api/api-error";

/** The settings an admin sees for the account (never pacing state or secrets). */
export async function getAccountSettings(accountId: string) {
  const account = await db().account.findUnique({
    where: { id: accountId },
    select: {
      id: true,
      name: true,
      timeZone: true,
      rateLimitPerSecond: true,
      bulkShare: true,
      bulkWindowStart: true,
      bulkWindowEnd: true,
      createdAt: true,
    },
  });
  if (!account) throw new ApiError("NotFound", { detail: `no account ${accountId}` });
  return { ...account, createdAt: account.createdAt.toISOString() };
}

export async function accountName(accountId: string): Promise<string> {
  const account = await db().account.findUnique({ where: { id: accountId }, select: { name: true } });
  return account?.name ?? "";
}
