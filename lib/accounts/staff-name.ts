import { db } from "../db/client";

/**
 * The name a staff member goes by in the portal (their name, else their email), or null when the id is not one of
 * the account's users (a key's caller, a deleted user). The account is part of the lookup.
 */
export async function staffName(input: { accountId: string; userId: string }): Promise<string | null> {
  if (!input.userId) return null;
  const user = await db().user.findFirst({
    where: { id: input.userId, accountId: input.accountId },
    select: { name: true, email: true },
  });
  return user ? user.name || user.email : null;
}
