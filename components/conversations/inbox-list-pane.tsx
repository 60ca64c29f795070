"use client";

import { usePathname } from "next/navigation";
import type { ConversationList as ListData } from "./thread-types";
import { ConversationList } from "./conversation-list";
import { NewConversation } from "./new-conversation";

/**
 * The inbox's list column. On a wide screen it stays beside the open thread (and keeps its place while staff move
 * between conversations); on a narrower one it is a screen of its own, hidden while a thread is open.
 */
export function InboxListPane({ initial, accountNumbers }: { initial: ListData; accountNumbers: string[] }) {
  const pathname = usePathname() ?? "";
  const threadOpen = /^\/conversations\/[^/]+/.test(pathname);
  const openId = threadOpen ? decodeURIComponent(pathname.split("/")[2] ?? "") : null;
  const Heading = threadOpen ? "h2" : "h1";
  return (
    <div
      className={`${threadOpen ? "hidden xl:flex" : "flex"} min-w-0 flex-col xl:h-[calc(100dvh-2.5rem)] xl:overflow-y-auto xl:pr-1`}
    >
      <div className="mb-4 flex flex-wrap items-start justify-between gap-3">
        <div className="min-w-0">
          <Heading className="text-2xl font-semibold tracking-tight text-slate-900">Conversations</Heading>
          <p className="mt-1 text-sm text-slate-600 xl:sr-only">
            Chats with phones, newest first. ↑ and ↓ move through the list, Enter opens a conversation.
          </p>
        </div>
        <NewConversation accountNumbers={accountNumbers} />
      </div>
      <ConversationList initial={initial} accountNumbers={accountNumbers} openId={openId} />
    </div>
  );
}
