import { db } from "../db/client";
import { listApiKeys } from "./manage-accounts";
import { listNumbers } from "../numbers/manage-numbers";
import { listingSelect, toListingResult } from "../messaging/message-serializers";

/** What the portal's home shows: the account, its numbers and keys (never secrets), recent messages. */
export async function accountOverview(accountId: string) {
  const client = db();
  const [account, numbers, keys, recent, total] = await Promise.all([
    client.account.findUnique({ where: { id: accountId } }),
    listNumbers({ accountId }).then((page) => page.numbers),
    listApiKeys(accountId),
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
