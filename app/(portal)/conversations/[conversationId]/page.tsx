import { notFound } from "next/navigation";
import { requireUser } from "@/app/(portal)/require-user";
import { ThreadView } from "@/components/conversations/thread-view";
import { getThread } from "@/lib/conversations/manage-conversations";
import { ApiError } from "@/lib/api/api-error";
import { composerLimits } from "@/lib/media/route-limits";

export const metadata = { title: "Conversation · Parley" };
export const dynamic = "force-dynamic";

export default async function Page({
  params,
  searchParams,
}: {
  params: Promise<{ conversationId: string }>;
  searchParams: Promise<{ at?: string | string[] }>;
}) {
  const user = await requireUser();
  const { conversationId } = await params;
  // ?at=messageId: opened from a search result, at that message.
  const at = [(await searchParams).at].flat()[0]?.slice(0, 64) || undefined;
  const thread = await getThread({ accountId: user.accountId, userId: user.id, conversationId, at }).catch((error) => {
    if (error instanceof ApiError) notFound();
    throw error;
  });
  return <ThreadView initial={thread} mediaLimits={await composerLimits(thread.conversation.accountNumber)} />;
}
