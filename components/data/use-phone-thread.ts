"use client";

import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useAccountApi } from "@/components/portal/portal-context";
import { apiCall } from "@/components/ui/api-client";
import { keys } from "@/components/ui/query-keys";
import { useLive } from "@/components/conversations/live-provider";
import { keepNewerOnPhone } from "@/components/conversations/apply-change";
import type { SimulatorThread } from "@/lib/carriers/simulator/phone-simulator-schema";

// All of the simulator's server traffic is here. The page sits under the live socket (LiveProvider): each change of
// the account goes through the same reducer as the conversation view's (applyChange), which writes it into the open
// phone whose conversation it belongs to. A slow poll stands in only while the socket is down, and for a phone with
// no conversation yet (the feed carries the messages of conversations; a notification to a phone that never wrote
// is in none).

const FALLBACK_POLL_MS = 5_000;

export interface PhoneLine {
  /** E.164 digits of the simulated phone. */
  phone: string;
  /** E.164 digits of the account's number it talks to. */
  accountNumber: string;
}

/** What the phone sent to the account number and received from it, the last `count` messages, kept fresh. */
export function usePhoneThread(line: PhoneLine, count: number) {
  const api = useAccountApi();
  const client = useQueryClient();
  const { connected } = useLive();
  const query = { phone: line.phone, accountNumber: line.accountNumber, count };
  return useQuery({
    queryKey: keys.simulator.phone(query),
    queryFn: async ({ signal, queryKey }) => {
      const { thread } = await apiCall<{ thread: SimulatorThread }>(api("/simulator/thread"), { query, signal });
      return { thread: keepNewerOnPhone(thread, client.getQueryData<{ thread: SimulatorThread }>(queryKey)?.thread) };
    },
    select: (data) => data.thread,
    refetchInterval: (q) => (connected && q.state.data?.thread.conversationId ? false : FALLBACK_POLL_MS),
    // Asking for earlier messages keeps the current ones on screen until the longer page arrives.
    placeholderData: keepPreviousData,
    staleTime: 0,
  });
}

export interface TextFromPhoneResult {
  messageId: string;
  conversationId: string;
  keyword: "out" | "in" | "help" | null;
  replyMessageId: string | null;
  flagged: boolean;
}

/** What the phone sends: words, pictures (addresses of media uploaded to Parley), or both. */
export interface FromPhone {
  text: string;
  media: string[];
}

/** Sends a text or an MMS as the phone; the thread (and any open conversation or message list) is read again at once. */
export function useSendFromPhone(line: PhoneLine) {
  const api = useAccountApi();
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ text, media }: FromPhone) =>
      apiCall<TextFromPhoneResult>(api("/simulator/inbound"), {
        method: "POST",
        body: { phone: line.phone, accountNumber: line.accountNumber, text, ...(media.length > 0 ? { media } : {}) },
      }),
    onSettled: () =>
      Promise.all([
        client.invalidateQueries({ queryKey: keys.simulator.all }),
        client.invalidateQueries({ queryKey: keys.conversations.all }),
        client.invalidateQueries({ queryKey: keys.messages.all }),
      ]),
  });
}
