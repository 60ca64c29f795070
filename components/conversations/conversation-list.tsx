"use client";

import { ContactLabel } from "@/components/contacts/contact-label";
import { useRef, useState, type KeyboardEvent } from "react";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { failureText } from "@/components/ui/api-client";
import { useConversations } from "@/components/data/use-conversations";
import { Badge } from "@/components/ui/badge";
import { EmptyState } from "@/components/ui/empty-state";
import { Notice } from "@/components/ui/notice";
import { Pager } from "@/components/ui/pager";
import { formatNumber } from "@/components/ui/format-time";
import { AccountTime } from "@/components/ui/account-time";
import type { ConversationList as ListData } from "./thread-types";
import { SearchResults } from "./search-results";
import { ConversationViews } from "./conversation-views";
import type { ConversationView } from "@/lib/conversations/assign-decisions";

const PAGE = 25;

/** The conversations, newest activity first: search, filters, unread counts that move live, keyboard navigation. */
export function ConversationList({
  initial,
  accountNumbers,
  openId = null,
}: {
  initial: ListData;
  accountNumbers: string[];
  /** The conversation open beside the list, marked in it. */
  openId?: string | null;
}) {
  const router = useRouter();
  const [q, setQ] = useState("");
  const [filter, setFilter] = useState<"all" | "unread">("all");
  const [accountNumber, setAccountNumber] = useState("");
  const [tag, setTag] = useState("");
  const [view, setView] = useState<ConversationView>("all");
  const [start, setStart] = useState(0);
  const [selected, setSelected] = useState(0);
  const listRef = useRef<HTMLUListElement>(null);
  const filters = { q: q.trim(), filter, accountNumber, tag: tag.trim(), view, start, count: PAGE };
  const untouched = !filters.q && filter === "all" && !accountNumber && !filters.tag && view === "all" && start === 0;
  const query = useConversations(filters, initial, untouched);
  const rows = query.data?.conversations ?? [];

  const move = (to: number) => {
    const next = Math.max(0, Math.min(rows.length - 1, to));
    setSelected(next);
    listRef.current?.querySelectorAll<HTMLAnchorElement>("a[data-row]")[next]?.focus();
  };
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === "ArrowDown") {
      event.preventDefault();
      move(selected + 1);
    } else if (event.key === "ArrowUp") {
      event.preventDefault();
      move(selected - 1);
    } else if (event.key === "Enter" && rows[selected] && !(event.target instanceof HTMLAnchorElement)) {
      event.preventDefault();
      router.push(`/conversations/${rows[selected]!.id}`);
    }
  };

  return (
    <div onKeyDown={onKeyDown}>
      <ConversationViews
        view={view}
        counts={query.data?.counts ?? initial.counts}
        onChange={(next) => {
          setView(next);
          setStart(0);
          setSelected(0);
        }}
      />
      <div className="mb-4 flex flex-wrap items-end gap-3">
        <label className="flex min-w-0 flex-1 basis-56 flex-col text-sm font-medium text-slate-700">
          Search conversations
          <input
            type="search"
            value={q}
            placeholder="Phone number, name or text"
            onChange={(e) => {
              setQ(e.target.value);
              setStart(0);
              setSelected(0);
            }}
            className="mt-1 rounded-md border border-slate-300 px-3 py-2 text-sm font-normal"
          />
        </label>
        <label className="flex flex-col text-sm font-medium text-slate-700">
          Show
          <select
            value={filter}
            onChange={(e) => {
              setFilter(e.target.value as "all" | "unread");
              setStart(0);
            }}
            className="mt-1 rounded-md border border-slate-300 px-3 py-2 text-sm font-normal"
          >
            <option value="all">All</option>
            <option value="unread">Unread</option>
          </select>
        </label>
        <label className="flex flex-col text-sm font-medium text-slate-700">
          Account number
          <select
            value={accountNumber}
            onChange={(e) => {
              setAccountNumber(e.target.value);
              setStart(0);
            }}
            className="mt-1 rounded-md border border-slate-300 px-3 py-2 text-sm font-normal"
          >
            <option value="">All numbers</option>
            {accountNumbers.map((n) => (
              <option key={n} value={n}>
                {formatNumber(n)}
              </option>
            ))}
          </select>
        </label>
        <label className="flex w-32 flex-col text-sm font-medium text-slate-700">
          Tag
          <input
            value={tag}
            placeholder="e.g. vip"
            onChange={(e) => {
              setTag(e.target.value);
              setStart(0);
              setSelected(0);
            }}
            className="mt-1 rounded-md border border-slate-300 px-3 py-2 text-sm font-normal"
          />
        </label>
      </div>
      <SearchResults q={q} />
      {query.error && <Notice tone="error">{failureText(query.error)}</Notice>}
      {rows.length === 0 && !query.isFetching ? (
        untouched ? (
          <EmptyState title="No conversations yet">
            A conversation starts when a phone texts one of the account&apos;s numbers, or when a message is sent with
            <code className="mx-1">conversational: true</code>.
          </EmptyState>
        ) : (
          <EmptyState title="No conversation matches">Clear the search or show all conversations.</EmptyState>
        )
      ) : (
        <ul
          ref={listRef}
          aria-label="Conversations"
          className="divide-y divide-slate-100 rounded-lg border border-slate-200 bg-white"
        >
          {rows.map((row, i) => (
            <li key={row.id}>
              <Link
                data-row
                href={`/conversations/${row.id}`}
                onFocus={() => setSelected(i)}
                aria-current={i === selected ? "true" : undefined}
                data-open={row.id === openId ? "" : undefined}
                className={`flex items-start gap-3 border-l-4 px-4 py-3 outline-none hover:bg-slate-50 focus:bg-indigo-50 ${
                  row.id === openId
                    ? "border-indigo-600 bg-indigo-50"
                    : i === selected
                      ? "border-transparent bg-slate-50"
                      : "border-transparent"
                }`}
              >
                <div className="min-w-0 flex-1">
                  <div className="flex flex-wrap items-center gap-2">
                    <span className={`text-sm ${row.unread > 0 ? "font-semibold text-slate-900" : "text-slate-800"}`}>
                      <ContactLabel name={row.contactName} number={row.remoteNumber} />
                    </span>
                    <span className="text-xs text-slate-600">to {formatNumber(row.accountNumber)}</span>
                    {row.optedOut && <Badge tone="red">Opted out</Badge>}
                    {row.possibleOptOut && <Badge tone="amber">Possible opt-out</Badge>}
                    {row.status === "resolved" && <Badge tone="green">Resolved</Badge>}
                  </div>
                  <p className="mt-0.5 truncate text-sm text-slate-600">
                    {row.preview
                      ? `${row.preview.direction === "outbound" ? "You: " : ""}${row.preview.body || `${row.preview.media} media`}`
                      : ""}
                  </p>
                </div>
                <div className="flex shrink-0 flex-col items-end gap-1">
                  <span className="text-xs text-slate-600">
                    <AccountTime iso={row.lastMessageAt} ago />
                  </span>
                  <span className="text-xs text-slate-600" data-assignee>
                    {row.assigneeName ?? "Unassigned"}
                  </span>
                  {row.unread > 0 && (
                    <span
                      aria-label={`${row.unread} unread`}
                      className="rounded-full bg-indigo-600 px-2 py-0.5 text-xs font-semibold text-white"
                    >
                      {row.unread}
                    </span>
                  )}
                </div>
              </Link>
            </li>
          ))}
        </ul>
      )}
      <Pager start={start} count={PAGE} total={query.data?.total ?? null} onChange={setStart} label="conversations" />
    </div>
  );
}
