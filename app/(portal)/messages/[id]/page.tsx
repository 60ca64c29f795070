import Link from "next/link";
import { notFound } from "next/navigation";
import { requireUser } from "@/app/(portal)/require-user";
import { MessageView } from "@/components/messages/message-view";
import { CopyButton } from "@/components/ui/copy-button";
import { PageHeader } from "@/components/ui/page-header";
import { getAccountSettings } from "@/lib/accounts/account-settings";
import { staffName } from "@/lib/accounts/staff-name";
import { getMessageDetail } from "@/lib/messaging/message-detail";

export const metadata = { title: "Message · Parley" };

export default async function Page({ params }: { params: Promise<{ id: string }> }) {
  const user = await requireUser();
  const { id } = await params;
  // The account is part of the lookup: another account's message id is as unknown here as a made-up one.
  const detail = await getMessageDetail({ accountId: user.accountId, messageId: id });
  if (!detail) notFound();
  const [account, senderName] = await Promise.all([
    getAccountSettings(user.accountId),
    detail.message.userType === "agent"
      ? staffName({ accountId: user.accountId, userId: detail.message.userId })
      : null,
  ]);
  return (
    <>
      <PageHeader
        title={detail.message.direction === "inbound" ? "Inbound message" : "Outbound message"}
        description={
          <span className="flex flex-wrap items-center gap-2">
            <code className="font-mono text-xs break-all">{detail.message.messageId}</code>
            <CopyButton text={detail.message.messageId} label="Copy id" />
          </span>
        }
        actions={
          <Link href="/messages" className="text-sm text-indigo-700 hover:underline">
            ← All messages
          </Link>
        }
      />
      <MessageView initial={detail} timeZone={account.timeZone} senderName={senderName} />
    </>
  );
}
