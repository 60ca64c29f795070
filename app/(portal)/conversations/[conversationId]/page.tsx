import { notFound } from "next/navigation";
import { requireUser } from "@/app/(portal)/require-user";
import { ThreadView } from "@/components/conversations/thread-view";
import { getThread } from "@/lib/conversations/manage-conversations";
import { ApiError } from "@/lib/api/api-error";

export const metadata = { title: "Conversation · Parley" };
export const dynamic = "force-dynamic";

export default async function Page({ params }: { params: Promise<{ conversationId: string }> }) {
  const user = await requireUser();
  const { conversationId } = await params;
  const thread = await getThread({ accountId: user.accountId, userId: user.id, conversationId }).catch((error) => {
    if (error instanceof ApiError) notFound();
    throw error;
  });
  return <ThreadView initial={thread} />;
}
