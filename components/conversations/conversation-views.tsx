"use client";

import { CONVERSATION_VIEWS, VIEW_LABELS, type ConversationView } from "@/lib/conversations/assign-decisions";
import type { ConversationList } from "./thread-types";

/**
 * The list's views as tabs with their counts: Mine, Unassigned and All (open conversations) and Resolved.
 * Arrow keys move between the tabs, as a tablist's do.
 */
export function ConversationViews({
  view,
  counts,
  onChange,
}: {
  view: ConversationView;
  counts: ConversationList["counts"] | undefined;
  onChange: (view: ConversationView) => void;
}) {
  const move = (from: number, by: number) => {
    const next = CONVERSATION_VIEWS[(from + by + CONVERSATION_VIEWS.length) % CONVERSATION_VIEWS.length]!;
    onChange(next);
    document.getElementById(`conversation-view-${next}`)?.focus();
  };
  return (
    <div role="tablist" aria-label="Views" className="mb-3 flex flex-wrap gap-1 border-b border-slate-200">
      {CONVERSATION_VIEWS.map((v, i) => (
        <button
          key={v}
          id={`conversation-view-${v}`}
          type="button"
          role="tab"
          aria-selected={v === view}
          tabIndex={v === view ? 0 : -1}
          onClick={() => onChange(v)}
          onKeyDown={(event) => {
            if (event.key === "ArrowRight" || event.key === "ArrowLeft") {
              event.preventDefault();
              move(i, event.key === "ArrowRight" ? 1 : -1);
            }
          }}
          className={`-mb-px border-b-2 px-3 py-2 text-sm font-medium ${
            v === view
              ? "border-indigo-600 text-indigo-700"
              : "border-transparent text-slate-600 hover:border-slate-300 hover:text-slate-900"
          }`}
        >
          {VIEW_LABELS[v]}
          {counts && (
            <span className="ml-1.5 rounded-full bg-slate-100 px-1.5 py-0.5 text-xs text-slate-700">{counts[v]}</span>
          )}
        </button>
      ))}
    </div>
  );
}
