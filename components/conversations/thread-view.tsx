"use client";

import { useEffect, useId, useLayoutEffect, useRef, useState } from "react";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useOlderMessages, useReadMarker, useThread } from "@/components/data/use-conversations";
import { failureText } from "@/components/ui/api-client";
import { Button } from "@/components/ui/button";
import { Notice } from "@/components/ui/notice";
import { MediaAttachments } from "@/components/media/media-attachments";
import { formatNumber } from "@/components/ui/format-time";
import { AccountTime } from "@/components/ui/account-time";
import { useViewer } from "@/components/portal/portal-context";
import { isFailed } from "@/lib/messaging/message-status";
import { DEFAULT_MEDIA_LIMITS, type MediaLimits } from "@/lib/media/attachment";
import { plainReason, type ThreadMessage } from "@/lib/realtime/change-schema";
import { ContactLabel } from "@/components/contacts/contact-label";
import { ContactPanel } from "@/components/contacts/contact-panel";
import { Composer } from "./composer";
import { PresenceBar, usePresence } from "./presence";
import { ActivityLine, timeline } from "./assignment-activity";
import { AssignmentControls } from "./assignment-controls";
import { useMarkMentionsRead } from "./note-data";
import { NoteItem } from "./note-item";
import { RetryReply } from "./retry-reply";
import { PENDING_STATUS, type ThreadData, type ThreadMessageView } from "./thread-types";

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
      <span className="font-medium text-red-700" data-state={m.status} title={m.reason || undefined}>
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

function Bubble({ m, marked = false }: { m: ThreadMessageView; marked?: boolean }) {
  if (m.automated)
    return (
      <li className="mx-auto max-w-md px-2 text-center text-xs text-slate-500" data-automated>
        Automated message · <AccountTime iso={m.createdAt} /> · {m.status}: {m.body}
      </li>
    );
  const out = m.direction === "outbound";
  const failed = isFailed(m.status);
  return (
    <li
      className={`flex ${out ? "justify-end" : "justify-start"} ${marked ? "rounded-lg bg-amber-100 p-1 ring-2 ring-amber-400" : ""}`}
      data-message-id={m.id}
      aria-current={marked ? "true" : undefined}
    >
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
          <MediaAttachments message={m} tone={out && !failed ? "dark" : "light"} />
        </div>
        <div className={`mt-0.5 text-xs text-slate-500 ${out ? "text-right" : ""}`}>
          {out && <span className="font-medium">{sender(m)} · </span>}
          <AccountTime iso={m.createdAt} />
          {out && (
            <>
              {" · "}
              <DeliveryState m={m} />
              <RetryReply m={m} />
            </>
          )}
        </div>
      </div>
    </li>
  );
}

/**
 * One conversation: bubbles that update live, opt-out banners, read markers and the composer. `mediaLimits` are the
 * route's (the server's MEDIA_* settings), what the composer measures attached files against.
 */
export function ThreadView({
  initial,
  mediaLimits = DEFAULT_MEDIA_LIMITS,
}: {
  initial: ThreadData;
  mediaLimits?: MediaLimits;
}) {
  const router = useRouter();
  const viewer = useViewer();
  const id = initial.conversation.id;
  const query = useThread(initial);
  const presence = usePresence(id);
  const { markRead, markUnread: unread } = useReadMarker(id);
  const thread = query.data;
  const end = useRef<HTMLLIElement>(null);
  const lastInbound = thread.messages.filter((m) => m.direction === "inbound").at(-1)?.id;
  const viewerId = viewer.userId;
  const [contactOpen, setContactOpen] = useState(false);
  const contactId = useId();
  useMarkMentionsRead(id, thread.notes, viewerId);

  // Opening the thread, and every message that arrives while it is open and visible, marks it read for the viewer.
  useEffect(() => {
    if (document.visibilityState === "hidden") return;
    markRead().catch(() => {});
  }, [markRead, lastInbound]);

  // The thread opens at its newest message, or at the one it was opened at (a search result), marked; it follows
  // new messages at the bottom, and keeps its place when older ones are read in above.
  const [marked] = useState(initial.at ?? null);
  const list = useRef<HTMLDivElement>(null);
  const items = timeline(thread.messages, thread.activity, thread.notes ?? []);
  const last = items.at(-1);
  const newest = last ? `${last.kind} ${last.at}` : undefined;
  const opened = useRef(false);
  const atBottom = useRef(true);
  useEffect(() => {
    if (!opened.current && marked) {
      opened.current = true;
      const target = list.current?.querySelector(`[data-message-id="${CSS.escape(marked)}"]`);
      if (target) return target.scrollIntoView({ block: "center" });
    }
    opened.current = true;
    // Someone reading further up is not pulled down by a new message; their own reply brings them down.
    const own =
      (last?.kind === "message" && last.message.status === PENDING_STATUS) ||
      (last?.kind === "note" && last.note.authorId === viewerId);
    if (atBottom.current || own) end.current?.scrollIntoView({ block: "end" });
  }, [newest, marked]);
  const onScroll = () => {
    const box = list.current;
    if (box) atBottom.current = box.scrollHeight - box.scrollTop - box.clientHeight < 150;
  };

  const older = useOlderMessages(id);
  const oldest = thread.messages[0]?.id;
  const keptFromBottom = useRef<number | null>(null);
  const loadOlder = () => {
    if (older.isPending || !thread.hasOlder || !list.current) return;
    keptFromBottom.current = list.current.scrollHeight - list.current.scrollTop;
    older.mutate();
  };
  useLayoutEffect(() => {
    const box = list.current;
    if (box && keptFromBottom.current !== null) box.scrollTop = box.scrollHeight - keptFromBottom.current;
    keptFromBottom.current = null;
  }, [oldest]);
  // Scrolling up to the top reads the page before it.
  const top = useRef<HTMLLIElement>(null);
  useEffect(() => {
    const sentinel = top.current;
    if (!sentinel || !thread.hasOlder) return;
    const observer = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting) && opened.current) loadOlder();
    });
    observer.observe(sentinel);
    return () => observer.disconnect();
  });

  const markUnread = async () => {
    await unread();
    router.push("/conversations");
  };

  const { conversation, optOut } = thread;
  return (
    // The thread fills the screen below the portal's top bar (phones) or the page's padding (wider screens): the
    // messages scroll inside it and the composer stays at its foot, in view when a thread opens. On a wide screen
    // the contact panel is a column beside it; on a narrower one it opens above the messages on demand.
    <div className="min-w-0 xl:grid xl:grid-cols-[minmax(0,1fr)_minmax(15rem,18rem)] xl:gap-4">
      <div className="flex h-[calc(100dvh-5.5rem)] min-h-80 flex-col overflow-hidden rounded-lg border border-slate-200 bg-slate-50 md:h-[calc(100dvh-2.5rem)] md:min-h-96">
        <div className="flex flex-wrap items-center justify-between gap-2 border-b border-slate-200 bg-white px-4 py-3">
          <div className="min-w-0">
            <Link href="/conversations" className="text-xs text-indigo-700 hover:underline xl:hidden">
              ← Conversations
            </Link>
            <h1 className="text-lg font-semibold text-slate-900">
              <ContactLabel name={conversation.contactName} number={conversation.remoteNumber} />
            </h1>
            <p className="text-xs text-slate-500">with {formatNumber(conversation.accountNumber)}</p>
            <PresenceBar viewers={presence.viewers} />
          </div>
          <div className="flex flex-wrap items-center gap-2">
            <AssignmentControls conversation={conversation} />
            <Button variant="secondary" size="sm" onClick={() => void markUnread()}>
              Mark unread
            </Button>
            <Button
              variant="secondary"
              size="sm"
              className="xl:hidden"
              aria-expanded={contactOpen}
              aria-controls={contactId}
              onClick={() => setContactOpen((v) => !v)}
            >
              {contactOpen ? "Hide contact" : "Contact details"}
            </Button>
          </div>
        </div>
        {contactOpen && (
          <ContactPanel
            id={contactId}
            number={conversation.remoteNumber}
            className="max-h-[45%] shrink-0 overflow-y-auto border-b border-slate-200 xl:hidden"
          />
        )}
        {optOut && (
          <Notice tone="error" className="m-3">
            <strong>This phone opted out.</strong>{" "}
            {optOut.source === "keyword"
              ? `It texted ${optOut.keyword ?? "STOP"} on `
              : `Opted out by ${optOut.actor || "an admin"} on `}
            <AccountTime iso={optOut.at} />. Nothing can be sent to it until it texts START.
          </Notice>
        )}
        {thread.possibleOptOut.length > 0 && (
          <Notice tone="warning" className="m-3">
            <strong>Possible opt-out:</strong> the phone wrote “{thread.possibleOptOut[0]}”. This may be a request to
            stop messages; read it, and if it is,{" "}
            {viewer.role === "admin" ? (
              <>
                opt the number out on{" "}
                <Link href="/opt-outs" className="font-medium underline">
                  Opt-outs
                </Link>
                .
              </>
            ) : (
              "do not reply, and ask an admin of the account to opt the number out (only admins can)."
            )}
          </Notice>
        )}
        {query.error && (
          <Notice tone="error" className="m-3">
            {failureText(query.error)}
          </Notice>
        )}
        {/* The messages scroll on their own: a live log screen readers announce, reachable by keyboard to scroll. */}
        <div
          ref={list}
          onScroll={onScroll}
          role="log"
          aria-label="Messages"
          aria-live="polite"
          tabIndex={0}
          className="flex-1 overflow-y-auto focus:outline-2 focus:outline-indigo-500"
        >
          <ol aria-label="Messages" className="flex flex-col gap-3 px-3 py-4 sm:px-4">
            {thread.hasOlder && (
              <li ref={top} className="text-center">
                <Button variant="secondary" size="sm" onClick={loadOlder} disabled={older.isPending}>
                  {older.isPending ? "Loading older messages…" : "Load older messages"}
                </Button>
                {older.error && <p className="mt-1 text-xs text-red-700">{failureText(older.error)}</p>}
              </li>
            )}
            {thread.messages.length === 0 && (
              <li className="text-center text-sm text-slate-500">No messages yet. Write the first one below.</li>
            )}
            {items.map((item) =>
              item.kind === "activity" ? (
                <ActivityLine key={`a-${item.activity.id}`} activity={item.activity} />
              ) : item.kind === "note" ? (
                <NoteItem key={`note-${item.note.id}`} note={item.note} />
              ) : (
                <Bubble
                  key={
                    item.message.referenceId && item.message.userType === "agent"
                      ? `r-${item.message.referenceId}`
                      : item.message.id
                  }
                  m={item.message}
                  marked={item.message.id === marked}
                />
              ),
            )}
            <li ref={end} aria-hidden="true" />
          </ol>
        </div>
        <div {...presence.typingHandlers}>
          <Composer
            conversationId={id}
            disabled={optOut !== null}
            limits={mediaLimits}
            accountNumber={conversation.accountNumber}
            contactName={conversation.contactName}
          />
        </div>
      </div>
      <div className="hidden xl:block">
        <ContactPanel
          number={conversation.remoteNumber}
          className="h-[calc(100dvh-2.5rem)] overflow-y-auto rounded-lg border border-slate-200"
        />
      </div>
    </div>
  );
}
