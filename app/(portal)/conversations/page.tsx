import { requireUser } from "@/app/(portal)/require-user";
import { PageHeader } from "@/components/ui/page-header";
import { ConversationList } from "@/components/conversations/conversation-list";
import { listConversations } from "@/lib/conversations/manage-conversations";
import { conversationFiltersSchema } from "@/lib/conversations/conversation-schema";
import { db } from "@/lib/db/client";

export const metadata = { title: "Conversations · Parley" };
export const dynamic = "force-dynamic";

export default async function Page() {
  const user = await requireUser();
  const [initial, numbers] = await Promise.all([
    listConversations({ accountId: user.accountId, userId: user.id, filters: conversationFiltersSchema.parse({}) }),
    db().phoneNumber.findMany({
      where: { accountId: user.accountId },
      select: { number: true },
      orderBy: { number: "asc" },
    }),
  ]);
  return (
    <>
      <PageHeader
        title="Conversations"
        description="Chats with phones, newest first. ↑ and ↓ move through the list, Enter opens a conversation."
      />
      <ConversationList initial={initial} accountNumbers={numbers.map((n) => n.number)} />
    </>
  );
}
