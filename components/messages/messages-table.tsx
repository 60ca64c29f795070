"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { ContactLabel } from "@/components/contacts/contact-label";
import { useContactNames } from "@/components/contacts/use-contacts";
import { StatusBadge } from "@/components/ui/badge";
import { formatInZone, formatNumber } from "@/components/ui/format-time";
import type { SortField } from "@/lib/messaging/listing-values";
import type { ListingResult } from "@/lib/messaging/message-serializers";
import { parseFilterTimestamp } from "@/lib/messaging/time-format";

function preview(message: ListingResult): string {
  if (message.body) return message.body;
  return message.media.length > 0 ? `${message.media.length} media` : "";
}

const COLUMNS: { field: SortField | null; label: string; className?: string }[] = [
  { field: "timestamp", label: "Time" },
  { field: "direction", label: "Direction" },
  { field: "from", label: "From" },
  { field: "to", label: "To" },
  { field: null, label: "Body", className: "w-full" },
  { field: "messageType", label: "Type" },
  { field: "numSegments", label: "Segments" },
  { field: "status", label: "Status" },
];

/** The messages of one page: a sortable table on wide screens, a list of cards on narrow ones; each opens the message. */
export function MessagesTable({
  messages,
  timeZone,
  sortBy,
  sortDir,
  onSort,
}: {
  messages: ListingResult[];
  timeZone: string;
  sortBy: SortField;
  sortDir: "asc" | "desc";
  onSort: (field: SortField) => void;
}) {
  // The remote phone of each message, by its contact name when staff saved one.
  const nameOf = useContactNames(messages.map((m) => (m.direction === "inbound" ? m.from : m.to)));
  const router = useRouter();
  const href = (m: ListingResult) => `/messages/${m.messageId}`;
  return (
    <>
      <div className="hidden overflow-x-auto rounded-lg border border-slate-200 bg-white md:block">
        <table className="w-full text-left text-sm">
          <thead className="bg-slate-50 text-slate-600">
            <tr>
              {COLUMNS.map((column) => {
                const sorted = column.field !== null && column.field === sortBy;
                return (
                  <th
                    key={column.label}
                    scope="col"
                    className={`px-3 py-2 font-medium whitespace-nowrap ${column.className ?? ""}`}
                    aria-sort={sorted ? (sortDir === "asc" ? "ascending" : "descending") : undefined}
                  >
                    {column.field ? (
                      <button
                        type="button"
                        onClick={() => onSort(column.field!)}
                        className="inline-flex items-center gap-1 rounded hover:text-slate-900 focus-visible:outline-2 focus-visible:outline-indigo-600"
                      >
                        {column.label}
                        <span aria-hidden="true" className={sorted ? "text-slate-900" : "text-slate-300"}>
                          {sorted ? (sortDir === "asc" ? "▲" : "▼") : "↕"}
                        </span>
                      </button>
                    ) : (
                      column.label
                    )}
                  </th>
                );
              })}
            </tr>
          </thead>
          <tbody>
            {messages.map((m) => {
              const instant = parseFilterTimestamp(m.timestamp) ?? m.timestamp;
              return (
                <tr
                  key={m.messageId}
                  onClick={(event) => {
                    if ((event.target as HTMLElement).closest("a")) return;
                    router.push(href(m));
                  }}
                  className="cursor-pointer border-t border-slate-100 hover:bg-slate-50"
                >
                  <td className="px-3 py-2 whitespace-nowrap">
                    <Link
                      href={href(m)}
                      prefetch={false}
                      title={m.timestamp}
                      className="font-mono text-xs text-indigo-700 hover:underline"
                    >
                      {formatInZone(instant, timeZone)}
                    </Link>
                  </td>
                  <td className="px-3 py-2 whitespace-nowrap text-slate-600">
                    {m.direction === "inbound" ? "← in" : "→ out"}
                  </td>
                  <td className="px-3 py-2 text-xs whitespace-nowrap">
                    <ContactLabel name={nameOf(m.from)} number={m.from} />
                  </td>
                  <td className="px-3 py-2 text-xs whitespace-nowrap">
                    <ContactLabel name={nameOf(m.to)} number={m.to} />
                  </td>
                  <td className="max-w-0 px-3 py-2">
                    <span className="block truncate" title={m.body}>
                      {preview(m)}
                    </span>
                  </td>
                  <td className="px-3 py-2 text-slate-600">{m.messageType}</td>
                  <td className="px-3 py-2 text-right tabular-nums">{m.numSegments}</td>
                  <td className="px-3 py-2">
                    <StatusBadge status={m.status} />
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>

      <ul className="space-y-2 md:hidden" aria-label="Messages list">
        {messages.map((m) => (
          <li key={m.messageId}>
            <Link
              href={href(m)}
              prefetch={false}
              className="block rounded-lg border border-slate-200 bg-white px-3 py-2.5 hover:bg-slate-50"
            >
              <span className="flex items-center justify-between gap-2">
                <span className="font-mono text-xs text-slate-500">
                  {formatInZone(parseFilterTimestamp(m.timestamp) ?? m.timestamp, timeZone)}
                </span>
                <StatusBadge status={m.status} />
              </span>
              <span className="mt-1 block truncate font-mono text-xs text-slate-700">
                {m.direction === "inbound" ? "←" : "→"} {nameOf(m.from) ?? formatNumber(m.from)} to{" "}
                {nameOf(m.to) ?? formatNumber(m.to)}
              </span>
              <span className="mt-1 block truncate text-sm text-slate-900">{preview(m) || "—"}</span>
            </Link>
          </li>
        ))}
      </ul>
    </>
  );
}
