import type { ReactNode } from "react";
import { requireUser } from "@/app/(portal)/require-user";
import { LiveProvider } from "@/components/conversations/live-provider";
import { currentPosition } from "@/lib/conversations/thread-messages";

export const dynamic = "force-dynamic";

// One socket for the list and the threads under it: it stays connected while staff move between them.
export default async function ConversationsLayout({ children }: { children: ReactNode }) {
  const user = await requireUser();
  return <LiveProvider initialPosition={await currentPosition(user.accountId)}>{children}</LiveProvider>;
}
