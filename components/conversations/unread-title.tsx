"use client";

import { useEffect } from "react";
import { usePathname } from "next/navigation";
import { useQuery } from "@tanstack/react-query";
import { useAccountApi } from "@/components/portal/portal-context";
import { apiCall } from "@/components/ui/api-client";
import { keys } from "@/components/ui/query-keys";
import type { ConversationList } from "./thread-types";

const COUNTED = /^\(\d+\) /;
// The unread conversations the viewer can see: the list's own "unread" filter, of which only the total is read. Its
// key is in the list family, so whatever refreshes the list (a live message, a read marker) refreshes the count.
const UNREAD = { q: "", filter: "unread", start: 0, count: 1 } as const;

/** The number of unread conversations the viewer can see. */
export function useUnreadConversations(): number | null {
  const api = useAccountApi();
  const query = useQuery({
    queryKey: keys.conversations.list(UNREAD),
    queryFn: ({ signal }) => apiCall<ConversationList>(api("/conversations"), { query: UNREAD, signal }),
  });
  return query.data?.total ?? null;
}

/**
 * Puts the unread count in front of the tab's title, "(3) Conversations · Parley", so a tab in the background shows
 * that something came in. Next sets the page's own title on every navigation; the count is put back in front of it.
 */
export function UnreadTitle() {
  const unread = useUnreadConversations();
  const pathname = usePathname();
  useEffect(() => {
    if (unread === null) return;
    const apply = () => {
      const base = document.title.replace(COUNTED, "");
      const wanted = unread > 0 ? `(${unread}) ${base}` : base;
      if (document.title !== wanted) document.title = wanted;
    };
    apply();
    const observer = new MutationObserver(apply);
    observer.observe(document.head, { subtree: true, childList: true, characterData: true });
    return () => {
      observer.disconnect();
      document.title = document.title.replace(COUNTED, "");
    };
  }, [unread, pathname]);
  return null;
}
