import { db } from "../db/client";
import { listingSelect, toListingResult } from "../messaging/message-serializers";

/** What the portal's home shows: the account, its numbers and keys (never secrets), recent messages. */
export async function accountOverview(accountId: string) {
  const client = db();
  const [account, numbers, keys, recent, total] = await Promise.all([
    client.account.findUnique({ where: { id: accountId } }),
    client.phoneNumber.findMany({ where: { accountId }, orderBy: { number: "asc" } }),
    client.apiKey.findMany({
      where: { accountId },
      orderBy: { createdAt: "asc" },
      select: {
        id: true,
        name: true,
        prefix: true,
        last4: true,
        createdAt: true,
        revokedAt: true,
        expiresAt: true,
        lastUsedAt: true,
      },
    }),
    client.message.findMany({
      where: { accountId },
      orderBy: [{ createdAt: "desc" }, { id: "desc" }],
      take: 20,
      select: listingSelect,
    }),
    client.message.count({ where: { accountId } }),
  ]);
  return { account, numbers, keys, recent: recent.map(toListingResult), total };
}
