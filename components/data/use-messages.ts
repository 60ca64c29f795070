"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useAccountApi } from "@/components/portal/portal-context";
import { apiCall, type Query } from "@/components/ui/api-client";
import { keys } from "@/components/ui/query-keys";
import { isFinalStatus } from "@/lib/messaging/explain-status";
import type { SdrRecord } from "@/lib/messaging/get-sdrs";
import type { MessagePage } from "@/lib/messaging/list-messages";
import type { MessageDetail } from "@/lib/messaging/message-detail";

// The message listing and one message with its SDRs. Both follow messages on their way: a page read again while it
// shows any, a message while it is not final.

const LIST_LIVE_MS = 5_000;
/** How often a message on its way is read again: its timeline moves within seconds. */
const DETAIL_LIVE_MS = 1_000;

export interface MessageWithSdrs {
  message: MessageDetail;
  sdrs: SdrRecord[];
}

/** One page of the listing; `initial` is used only when it is the page of this very query. */
export function useMessages(query: Query, initial: MessagePage | undefined) {
  const api = useAccountApi();
  return useQuery({
    queryKey: keys.messages.list(query),
    queryFn: ({ signal }) => apiCall<MessagePage>(api("/messages"), { query, signal }),
    initialData: initial,
    placeholderData: keepPreviousData,
    refetchInterval: (q) => (q.state.data?.results.some((m) => !isFinalStatus(m.status)) ? LIST_LIVE_MS : false),
  });
}

export function useMessage(initial: MessageWithSdrs) {
  const api = useAccountApi();
  const id = initial.message.messageId;
  return useQuery({
    queryKey: keys.messages.detail(id),
    queryFn: ({ signal }) => apiCall<MessageWithSdrs>(api(`/messages/${encodeURIComponent(id)}`), { signal }),
    initialData: initial,
    refetchInterval: (q) => (isFinalStatus(q.state.data?.message.status ?? "") ? false : DETAIL_LIVE_MS),
  });
}
