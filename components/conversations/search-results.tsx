"use client";

import { useEffect, useState } from "react";
import Link from "next/link";
import { useQuery } from "@tanstack/react-query";
import { useAccountApi } from "@/components/portal/portal-context";
import { apiCall, failureText } from "@/components/ui/api-client";
import { keys } from "@/components/ui/query-keys";
import { Notice } from "@/components/ui/notice";
import { formatNumber, formatTime } from "@/components/ui/format-time";
import { ContactLabel } from "@/components/contacts/contact-label";
// Types only: erased from the bundle.
import type { MessageHit, NumberHit } from "@/lib/conversations/search-conversations";

interface SearchAnswer {
  q: string;
  messages: MessageHit[];
  numbers: NumberHit[];
  contacts: NumberHit[];
}

/** The text typed, once the typing paused: one search per pause, not per key. */
function useSettled(value: string, delayMs = 250): string {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), delayMs);
    return () => clearTimeout(timer);
  }, [value, delayMs]);
  return settled;
}

/**
 * What a search finds across the account's conversations: the conversations whose contact's name holds the text or
 * whose number holds the digits typed, and the messages that hold the text, each showing the words around the
 * match (marked) and opening its thread at that message.
 */
export function SearchResults({ q }: { q: string }) {
  const api = useAccountApi();
  const settled = useSettled(q.trim());
  const search = useQuery({
    queryKey: keys.conversations.search(settled),
    queryFn: () => apiCall<SearchAnswer>(api("/conversations/search"), { query: { q: settled } }),
    enabled: settled !== "",
  });
  if (!settled) return null;
  const data = search.data;
  return (
    <section aria-label="Search results" className="mb-4 rounded-lg border border-slate-200 bg-white p-3">
      {search.error && <Notice tone="error">{failureText(search.error)}</Notice>}
      {search.isPending && <p className="text-sm text-slate-500">Searching…</p>}
      {data && <ConversationHits title="Contacts" label="Matching contacts" hits={data.contacts ?? []} />}
      {data && <ConversationHits title="Phone numbers" label="Matching numbers" hits={data.numbers} />}
      {data && (
        <>
          <h2 className="mb-1 text-sm font-semibold text-slate-700">Messages</h2>
          {data.messages.length === 0 ? (
            <p className="text-sm text-slate-500">No message holds “{data.q}”.</p>
          ) : (
            <ul aria-label="Matching messages" className="divide-y divide-slate-100">
              {data.messages.map((m) => (
                <li key={m.messageId}>
                  <Link
                    href={`/conversations/${m.conversationId}?at=${encodeURIComponent(m.messageId)}`}
                    className="block px-2 py-1.5 text-sm hover:bg-slate-50 focus:bg-slate-50"
                  >
                    <span className="flex justify-between gap-2 text-xs text-slate-500">
                      <span>
                        <ContactLabel name={m.contactName} number={m.remoteNumber} /> ·{" "}
                        {m.direction === "inbound" ? "from the phone" : "sent"}
                      </span>
                      <time dateTime={m.createdAt}>{formatTime(m.createdAt)}</time>
                    </span>
                    <span className="block break-words text-slate-800">
                      {m.snippet.before}
                      <mark className="rounded bg-amber-200 px-0.5 text-slate-900">{m.snippet.match}</mark>
                      {m.snippet.after}
                    </span>
                  </Link>
                </li>
              ))}
            </ul>
          )}
        </>
      )}
    </section>
  );
}

/** Conversations found by their contact's name or their number: each opens its thread. */
function ConversationHits({ title, label, hits }: { title: string; label: string; hits: NumberHit[] }) {
  if (hits.length === 0) return null;
  return (
    <>
      <h2 className="mb-1 text-sm font-semibold text-slate-700">{title}</h2>
      <ul aria-label={label} className="mb-3 divide-y divide-slate-100">
        {hits.map((n) => (
          <li key={n.conversationId}>
            <Link
              href={`/conversations/${n.conversationId}`}
              className="block px-2 py-1.5 text-sm hover:bg-slate-50 focus:bg-slate-50"
            >
              <span className="font-medium text-slate-900">
                <ContactLabel name={n.contactName} number={n.remoteNumber} />
              </span>
              <span className="text-slate-500"> · with {formatNumber(n.accountNumber)}</span>
            </Link>
          </li>
        ))}
      </ul>
    </>
  );
}
