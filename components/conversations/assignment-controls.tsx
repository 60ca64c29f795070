"use client";

import { useEffect, useRef, useState, type KeyboardEvent } from "react";
import { useViewer } from "@/components/portal/portal-context";
import { failureText } from "@/components/ui/api-client";
import { Button } from "@/components/ui/button";
import { formatTime } from "@/components/ui/format-time";
import { decideAssign } from "@/lib/conversations/assign-decisions";
import { useConversationActions, useStaff } from "./assignment-hooks";
import type { ThreadData } from "./thread-types";

/** How long a conversation can be snoozed for: it leaves the open views until then, or until the phone writes. */
const SNOOZE_CHOICES: [label: string, hours: number][] = [
  ["For 1 hour", 1],
  ["For 3 hours", 3],
  ["Until tomorrow", 24],
  ["For a week", 168],
];

/**
 * The thread header's inbox controls: who has the conversation, "Assign" (a list of the account's staff by name,
 * and "Unassigned"; an agent can pick only themselves while it is unassigned, or hand back their own), "Snooze" and
 * "Resolve" / "Reopen".
 */
export function AssignmentControls({ conversation: shown }: { conversation: ThreadData["conversation"] }) {
  const conversation = { ...shown, assigneeId: shown.assigneeId ?? null, assigneeName: shown.assigneeName ?? null };
  const viewer = useViewer();
  const staff = useStaff();
  const actions = useConversationActions(conversation.id);
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const listRef = useRef<HTMLUListElement>(null);
  const wrapRef = useRef<HTMLDivElement>(null);
  const focusButton = () => wrapRef.current?.querySelector<HTMLElement>("button[aria-haspopup]")?.focus();

  useEffect(() => {
    if (open) listRef.current?.querySelector<HTMLElement>('[role="option"]:not([aria-disabled="true"])')?.focus();
  }, [open, staff.data]);

  const act = async (what: () => Promise<void>) => {
    setBusy(true);
    setError(null);
    try {
      await what();
    } catch (failure) {
      setError(failureText(failure));
    } finally {
      setBusy(false);
    }
  };

  const choose = (assigneeId: string | null) => {
    setOpen(false);
    focusButton();
    if (assigneeId !== conversation.assigneeId) void act(() => actions.assign(assigneeId));
  };

  const me = { userId: viewer.userId, role: viewer.role };
  const options = [
    ...(staff.data ?? []).map((s) => ({ id: s.id as string | null, name: s.name })),
    { id: null, name: "Unassigned" },
  ].map((o) => ({ ...o, allowed: decideAssign(me, conversation.assigneeId, o.id).ok }));

  const onListKey = (event: KeyboardEvent<HTMLUListElement>) => {
    const items = [...(listRef.current?.querySelectorAll<HTMLElement>('[role="option"]') ?? [])];
    const at = items.indexOf(document.activeElement as HTMLElement);
    if (event.key === "Escape") {
      event.preventDefault();
      setOpen(false);
      focusButton();
    } else if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      const next = items[(at + (event.key === "ArrowDown" ? 1 : items.length - 1)) % items.length];
      next?.focus();
    }
  };

  const resolved = conversation.status === "resolved";
  return (
    <div ref={wrapRef} className="relative flex flex-wrap items-center gap-2">
      <span className="text-xs text-slate-600" data-testid="assignee">
        {conversation.assigneeName ? `Assigned to ${conversation.assigneeName}` : "Unassigned"}
        {resolved && " · Resolved"}
        {conversation.snoozedUntil && ` · Snoozed until ${formatTime(conversation.snoozedUntil)}`}
      </span>
      <Button
        variant="secondary"
        size="sm"
        aria-haspopup="listbox"
        aria-expanded={open}
        disabled={busy}
        onClick={() => setOpen((v) => !v)}
      >
        Assign
      </Button>
      {open && (
        <ul
          ref={listRef}
          role="listbox"
          aria-label="Assign to"
          onKeyDown={onListKey}
          className="absolute top-full right-0 z-20 mt-1 max-h-72 w-56 overflow-y-auto rounded-md border border-slate-200 bg-white py-1 text-sm shadow-lg"
        >
          {staff.isPending && <li className="px-3 py-1.5 text-slate-500">Loading…</li>}
          {options.map((o) => (
            <li
              key={o.id ?? "none"}
              role="option"
              tabIndex={-1}
              aria-selected={o.id === conversation.assigneeId}
              aria-disabled={!o.allowed}
              onClick={() => o.allowed && choose(o.id)}
              onKeyDown={(event) => {
                if ((event.key === "Enter" || event.key === " ") && o.allowed) {
                  event.preventDefault();
                  choose(o.id);
                }
              }}
              className={`cursor-pointer px-3 py-1.5 outline-none focus:bg-indigo-50 ${
                o.allowed ? "text-slate-800 hover:bg-slate-50" : "cursor-not-allowed text-slate-400"
              } ${o.id === conversation.assigneeId ? "font-semibold" : ""}`}
            >
              {o.name}
              {o.id !== null && o.id === viewer.userId ? " (you)" : ""}
            </li>
          ))}
        </ul>
      )}
      {!resolved && (
        <select
          aria-label="Snooze"
          value=""
          disabled={busy}
          onChange={(event) => {
            const hours = Number(event.target.value);
            if (hours > 0) void act(() => actions.snooze(new Date(Date.now() + hours * 3_600_000)));
          }}
          className="rounded-md border border-slate-300 bg-white px-2 py-1 text-sm text-slate-700"
        >
          <option value="">Snooze…</option>
          {SNOOZE_CHOICES.map(([label, hours]) => (
            <option key={hours} value={hours}>
              {label}
            </option>
          ))}
        </select>
      )}
      <Button
        variant={resolved ? "secondary" : "primary"}
        size="sm"
        disabled={busy}
        onClick={() => void act(() => actions.setStatus(resolved ? "open" : "resolved"))}
      >
        {resolved ? "Reopen" : "Resolve"}
      </Button>
      {error && (
        <p role="alert" className="w-full text-xs text-red-700">
          {error}
        </p>
      )}
    </div>
  );
}
