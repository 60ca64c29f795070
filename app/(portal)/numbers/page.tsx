import { requireAdmin } from "@/app/(portal)/require-user";
import { NumbersScreen } from "@/components/numbers/numbers-screen";
import { PageHeader } from "@/components/ui/page-header";
import { getAccountSettings } from "@/lib/accounts/account-settings";
import { listConnectionNames } from "@/lib/carriers/connections/manage-connections";
import { listNumbers, toPortalNumber } from "@/lib/numbers/manage-numbers";
import { NUMBERS_PAGE_SIZE } from "@/lib/numbers/number-schema";

export const metadata = { title: "Numbers · Parley" };

// /numbers (admins): the account's telephone numbers; provision, label, pace, route and release them. The carrier
// picker offers the account's connections by name (nothing else of them reaches the page).
export default async function Page() {
  const user = await requireAdmin();
  const [page, account, connections] = await Promise.all([
    listNumbers({ accountId: user.accountId, start: 0, count: NUMBERS_PAGE_SIZE }),
    getAccountSettings(user.accountId),
    listConnectionNames(user.accountId),
  ]);
  return (
    <>
      <PageHeader
        title="Numbers"
        description={`The numbers this account sends from and receives on. Each number sends at most its own rate; the account's limit of ${account.rateLimitPerSecond} messages a second caps them all.`}
      />
      <NumbersScreen
        initial={{ numbers: page.numbers.map(toPortalNumber), total: page.total, start: 0, count: NUMBERS_PAGE_SIZE }}
        carriers={connections}
      />
    </>
  );
}
