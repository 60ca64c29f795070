import type { ReactNode } from "react";
import { requireUser } from "@/app/(portal)/require-user";
import { InboxListPane } from "@/components/conversations/inbox-list-pane";
import { InboxShortcuts } from "@/components/conversations/inbox-shortcuts";
import { LiveProvider } from "@/components/conversations/live-provider";
import { UnreadTitle } from "@/components/conversations/unread-title";
import { listConversations } from "@/lib/conversations/manage-conversations";
import { conversationFiltersSchema } from "@/lib/conversations/conversation-schema";
import { currentPosition } from "@/lib/conversations/thread-messages";
import { accountNumbers } from "@/lib/numbers/manage-numbers";

export const dynamic = "force-dynamic";

// One socket for the list and the threads under it: it stays connected while staff move between them. The list
// lives here, not in a page: on a wide screen it stays beside the thread, so switching conversations keeps its
// place (view, search, filters, scroll); on a phone the list and the thread are separate screens.
export default async function ConversationsLayout({ children }: { children: ReactNode }) {
  const user = await requireUser();
  const [position, initial, numbers] = await Promise.all([
    currentPosition(user.accountId),
    listConversations({ accountId: user.accountId, userId: user.id, filters: conversationFiltersSchema.parse({}) }),
    accountNumbers(user.accountId),
  ]);
  return (
    <LiveProvider initialPosition={position} userId={user.id}>
      <div className="xl:grid xl:grid-cols-[minmax(18rem,22rem)_minmax(0,1fr)] xl:gap-4">
        <InboxListPane initial={initial} accountNumbers={numbers} />
        {children}
      </div>
      <UnreadTitle />
      <InboxShortcuts />
    </LiveProvider>
  );
}
