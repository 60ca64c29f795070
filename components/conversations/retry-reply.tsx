"use client";

import { useState } from "react";
import { useSendReply } from "@/components/data/use-conversations";
import { isFailed } from "@/lib/messaging/message-status";
import { newClientId } from "./composer";
import { countForComposer } from "./segment-counter";
import type { ThreadMessageView } from "./thread-types";

/**
 * "Retry" under a failed reply: sends the same text and media again as a new reply (a new bubble, with its own
 * ticks); the failed one stays as it was, so the thread keeps what happened.
 */
export function RetryReply({ m, disabled = false }: { m: ThreadMessageView; disabled?: boolean }) {
  const sendReply = useSendReply(m.conversationId);
  const [sent, setSent] = useState(false);
  if (m.direction !== "outbound" || m.automated || !isFailed(m.status)) return null;
  if (!m.body.trim() && m.media.length === 0) return null;
  return (
    <button
      type="button"
      disabled={disabled || sent}
      onClick={() => {
        setSent(true);
        void sendReply({ body: m.body, media: m.media, clientId: newClientId() }, countForComposer(m.body));
      }}
      className="ml-1 rounded px-1.5 py-0.5 font-medium text-indigo-700 underline underline-offset-2 hover:bg-indigo-50 disabled:text-slate-500 disabled:no-underline"
    >
      {sent ? "Sent again" : "Retry"}
    </button>
  );
}
