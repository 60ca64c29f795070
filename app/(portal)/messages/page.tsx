import { requireUser } from "@/app/(portal)/require-user";
import { FirstMessageHelp } from "@/components/messages/first-message-help";
import { listQueryOf } from "@/components/messages/list-query";
import { MessagesBrowser } from "@/components/messages/messages-browser";
import { PageHeader } from "@/components/ui/page-header";
import { getAccountSettings } from "@/lib/accounts/account-settings";
import { listNumbers } from "@/lib/numbers/manage-numbers";
import { isApiError } from "@/lib/api/api-error";
import { env, publicUrl } from "@/lib/env";
import { queryMessages } from "@/lib/messaging/list-messages";
import { parseListQuery } from "@/lib/messaging/list-schema";

export const metadata = { title: "Messages · Parley" };

type SearchParams = Promise<Record<string, string | string[] | undefined>>;

export default async function Page({ searchParams }: { searchParams: SearchParams }) {
  const user = await requireUser();
  const query = listQueryOf(await searchParams);
  const params = new URLSearchParams(query as Record<string, string>);
  params.set("accountId", user.accountId);
  // First paint from the same parser and query as the API route; a bad filter is left to the client to report.
  const page = await queryMessages(parseListQuery(params)).catch((error: unknown) => {
    if (isApiError(error)) return null;
    throw error;
  });
  const [account, { numbers }] = await Promise.all([
    getAccountSettings(user.accountId),
    listNumbers({ accountId: user.accountId }),
  ]);
  return (
    <>
      <PageHeader
        title="Messages"
        description={`Every message the account sent or received. Times are in ${account.timeZone}, the account's time zone.`}
      />
      <MessagesBrowser
        initial={page ? { query, page } : null}
        timeZone={account.timeZone}
        numbers={numbers.map((n) => n.number)}
        firstMessageHelp={
          <FirstMessageHelp
            baseUrl={publicUrl()}
            accountId={user.accountId}
            from={numbers[0]?.number ?? null}
            isAdmin={user.role === "admin"}
            simulator={env().CARRIER === "simulator"}
          />
        }
      />
    </>
  );
}
