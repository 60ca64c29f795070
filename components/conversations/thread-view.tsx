"use client";

import { useEffect, useRef } from "react";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useReadMarker, useThread } from "@/components/data/use-conversations";
import { failureText } from "@/components/ui/api-client";
import { Button } from "@/components/ui/button";
import { Notice } from "@/components/ui/notice";
import { SafeImage, SafeLink } from "@/components/ui/safe-link";
import { formatNumber, formatTime } from "@/components/ui/format-time";
import { isFailed } from "@/lib/messaging/message-status";
import { plainReason, type ThreadMessage } from "@/lib/realtime/change-schema";
import { Composer } from "./composer";
import { PENDING_STATUS, type ThreadData } from "./thread-types";

const IMAGE = /\.(png|jpe?g|gif|webp|bmp|svg)(\?.*)?$/i;

function sender(m: ThreadMessage): string {
  if (m.senderName) return m.senderName;
  if (m.userType === "automatic") return "Automatic reply";
  if (m.userId || m.userType) return [m.userType, m.userId].filter(Boolean).join(" ");
  return "API";
}

function DeliveryState({ m }: { m: ThreadMessage }) {
  if (m.status === PENDING_STATUS) return <span>Sending…</span>;
  if (isFailed(m.status))
    return (
      <span className="font-medium text-red-700" data-state={m.status}>
        ✕ {m.status} — {plainReason(m.status, m.reason)}
      </span>
    );
  const label =
    m.status === "delivered"
      ? "✓✓ delivered"
      : m.status === "sent"
        ? "✓ sent"
        : m.status === "sending"
          ? "sending"
          : m.status;
  return <span data-state={m.status}>{label}</span>;
}

function Media({ urls }: { urls: string[] }) {
  if (urls.length === 0) return null;
  return (
    <div className="mt-1 flex flex-col gap-1">
      {urls.map((url, i) =>
        IMAGE.test(url) ? (
          <SafeImage key={i} url={url} alt="Attached image" className="max-h-48 max-w-full rounded" />
        ) : (
          <SafeLink key={i} url={url} className="break-all" linkClassName="underline" />
        ),
      )}
    </div>
  );
}

function Bubble({ m }: { m: ThreadMessage }) {
  if (m.automated)
    return (
      <li className="mx-auto max-w-md px-2 text-center text-xs text-slate-400" data-automated>
        Automated message · {formatTime(m.createdAt)} · {m.status}: {m.body}
      </li>
    );
  const out = m.direction === "outbound";
  const failed = isFailed(m.status);
  return (
    <li className={`flex ${out ? "justify-end" : "justify-start"}`} data-message-id={m.id}>
      <div className="max-w-[85%] sm:max-w-[70%]">
        <div
          className={`rounded-2xl px-3.5 py-2 text-sm whitespace-pre-wrap break-words ${
            out
              ? failed
                ? "bg-red-50 text-red-900 ring-1 ring-red-200"
                : "bg-indigo-600 text-white"
              : "bg-white text-slate-900 ring-1 ring-slate-200"
          }`}
        >
          {m.body}
          <Media urls={m.media} />
        </div>
        <div className={`mt-0.5 text-xs text-slate-500 ${out ? "text-right" : ""}`}>
          {out && <span className="font-medium">{sender(m)} · </span>}
          <time dateTime={m.createdAt}>{formatTime(m.createdAt)}</time>
          {out && (
            <>
              {" · "}
              <DeliveryState m={m} />
            </>
          )}
        </div>
      </div>
    </li>
  );
}

/** One conversation: bubbles that update live, opt-out banners, read markers and the composer. */
export function ThreadView({ initial }: { initial: ThreadData }) {
  const router = useRouter();
  const id = initial.conversation.id;
  const query = useThread(initial);
  const { markRead, markUnread: unread } = useReadMarker(id);
  const thread = query.data;
  const end = useRef<HTMLDivElement>(null);
  const lastInbound = thread.messages.filter((m) => m.direction === "inbound").at(-1)?.id;

  // Opening the thread, and every message that arrives while it is open and visible, marks it read for the viewer.
  useEffect(() => {
    if (document.visibilityState === "hidden") return;
    markRead().catch(() => {});
  }, [markRead, lastInbound]);

  useEffect(() => {
    end.current?.scrollIntoView({ block: "end" });
  }, [thread.messages.length]);

  const markUnread = async () => {
    await unread();
    router.push("/conversations");
  };

  const { conversation, optOut } = thread;
  return (
    <div className="flex min-h-[70vh] flex-col overflow-hidden rounded-lg border border-slate-200 bg-slate-50 md:h-[calc(100dvh-4rem)] md:min-h-96">
      <div className="flex flex-wrap items-center justify-between gap-2 border-b border-slate-200 bg-white px-4 py-3">
        <div className="min-w-0">
          <Link href="/conversations" className="text-xs text-indigo-700 hover:underline">
            ← Conversations
          </Link>
          <h2 className="font-mono text-lg font-semibold text-slate-900">{formatNumber(conversation.remoteNumber)}</h2>
          <p className="text-xs text-slate-500">with {formatNumber(conversation.accountNumber)}</p>
        </div>
        <Button variant="secondary" size="sm" onClick={() => void markUnread()}>
          Mark unread
        </Button>
      </div>
      {optOut && (
        <Notice tone="error" className="m-3">
          <strong>This phone opted out.</strong>{" "}
          {optOut.source === "keyword"
            ? `It texted ${optOut.keyword ?? "STOP"} on ${formatTime(optOut.at)}.`
            : `Opted out by ${optOut.actor || "an admin"} on ${formatTime(optOut.at)}.`}{" "}
          Nothing can be sent to it until it texts START.
        </Notice>
      )}
      {thread.possibleOptOut.length > 0 && (
        <Notice tone="warning" className="m-3">
          <strong>Possible opt-out:</strong> the phone wrote “{thread.possibleOptOut[0]}”. This may be a request to stop
          messages; read it and opt the number out from Opt-outs if it is.
        </Notice>
      )}
      {query.error && (
        <Notice tone="error" className="m-3">
          {failureText(query.error)}
        </Notice>
      )}
      <ol aria-label="Messages" className="flex flex-1 flex-col gap-3 overflow-y-auto px-3 py-4 sm:px-4">
        {thread.hasOlder && <li className="text-center text-xs text-slate-400">Older messages are in Messages.</li>}
        {thread.messages.length === 0 && (
          <li className="text-center text-sm text-slate-500">No messages yet. Write the first one below.</li>
        )}
        {thread.messages.map((m) => (
          <Bubble key={m.referenceId && m.userType === "agent" ? `r-${m.referenceId}` : m.id} m={m} />
        ))}
        <div ref={end} />
      </ol>
      <Composer conversationId={id} disabled={optOut !== null} />
    </div>
  );
}
