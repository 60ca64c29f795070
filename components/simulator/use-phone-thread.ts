"use client";

import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useAccountApi } from "@/components/portal/portal-context";
import { apiCall } from "@/components/ui/api-client";
import { keys } from "@/components/ui/query-keys";
import { useLive } from "@/components/conversations/live-provider";
import type { SimulatorThread } from "@/lib/carriers/simulator/phone-simulator-schema";

// All of the simulator's server traffic is here. The page sits under the live socket (LiveProvider), which reads
// the open threads again whenever a change of the account arrives; while the socket is down, the thread is polled
// every second instead, and while it is up, every 15 s as a safety net.

export const THREAD_POLL_MS = 1_000;
const LIVE_SAFETY_POLL_MS = 15_000;

export interface PhoneLine {
  /** E.164 digits of the simulated phone. */
  phone: string;
  /** E.164 digits of the account's number it talks to. */
  accountNumber: string;
}

/** What the phone sent to the account number and received from it, the last `count` messages, kept fresh. */
export function usePhoneThread(line: PhoneLine, count: number) {
  const api = useAccountApi();
  const { connected } = useLive();
  const query = { phone: line.phone, accountNumber: line.accountNumber, count };
  return useQuery({
    queryKey: keys.simulator.phone(query),
    queryFn: ({ signal }) => apiCall<{ thread: SimulatorThread }>(api("/simulator/thread"), { query, signal }),
    select: (data) => data.thread,
    refetchInterval: connected ? LIVE_SAFETY_POLL_MS : THREAD_POLL_MS,
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

/** Sends a text as the phone; the thread (and any open conversation or message list) is read again at once. */
export function useTextFromPhone(line: PhoneLine) {
  const api = useAccountApi();
  const client = useQueryClient();
  return useMutation({
    mutationFn: (text: string) =>
      apiCall<TextFromPhoneResult>(api("/simulator/inbound"), {
        method: "POST",
        body: { phone: line.phone, accountNumber: line.accountNumber, text },
      }),
    onSettled: () =>
      Promise.all([
        client.invalidateQueries({ queryKey: keys.simulator.all }),
        client.invalidateQueries({ queryKey: keys.conversations.all }),
        client.invalidateQueries({ queryKey: keys.messages.all }),
      ]),
  });
}
