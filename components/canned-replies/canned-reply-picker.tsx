"use client";

import { useId, useMemo, useState, type KeyboardEvent, type RefObject } from "react";
import { useViewer } from "@/components/portal/portal-context";
import type { CannedReplyView } from "@/lib/canned-replies/canned-reply-schema";
import { renderCannedReply, type CannedReplyVars } from "@/lib/canned-replies/render-canned-reply";
import { useCannedReplies } from "./use-canned-replies";

/** A "/" typed at the start of the text or after a space, up to the caret: where the picker's search sits. */
export interface SlashTrigger {
  /** Index of the "/" in the text. */
  start: number;
  /** What follows the slash up to the caret. */
  query: string;
}

/** The slash the caret is in, if any: "/" at the start or after whitespace, then no whitespace up to the caret. */
export function findSlashTrigger(text: string, caret: number): SlashTrigger | null {
  const before = text.slice(0, caret);
  const match = /(^|\s)\/(\S*)$/.exec(before);
  if (!match) return null;
  return { start: caret - match[2]!.length - 1, query: match[2]! };
}

/** Replies whose shortcut (first) or text holds the query, without case. */
export function filterCannedReplies(replies: CannedReplyView[], query: string): CannedReplyView[] {
  const q = query.toLowerCase();
  if (q === "") return replies;
  const byShortcut = replies.filter((r) => r.shortcut.toLowerCase().includes(q));
  const byText = replies.filter((r) => !byShortcut.includes(r) && r.text.toLowerCase().includes(q));
  return [...byShortcut, ...byText];
}

const MAX_SHOWN = 8;

/**
 * The composer's "/" picker: a listbox "Canned replies" under the text box, driven from the box itself (the
 * box keeps focus and points at the highlighted option with aria-activedescendant). Arrow keys move, Enter or Tab or
 * a click inserts the reply with its variables filled in, Escape closes it until the next "/".
 */
export function useCannedReplyPicker({
  text,
  setText,
  textarea,
  vars,
}: {
  text: string;
  setText: (text: string) => void;
  textarea: RefObject<HTMLTextAreaElement | null>;
  vars: Omit<CannedReplyVars, "agentName">;
}) {
  const viewer = useViewer();
  const listId = useId();
  const [caret, setCaret] = useState(0);
  const [dismissed, setDismissed] = useState<number | null>(null);
  const [active, setActive] = useState(0);
  const trigger = findSlashTrigger(text, Math.min(caret, text.length));
  const open = trigger !== null && trigger.start !== dismissed;
  const replies = useCannedReplies({ enabled: open || text.includes("/") });
  const matches = useMemo(
    () => (trigger ? filterCannedReplies(replies.data ?? [], trigger.query).slice(0, MAX_SHOWN) : []),
    [replies.data, trigger],
  );
  const allVars: CannedReplyVars = { ...vars, agentName: viewer.name };
  const current = Math.min(active, Math.max(0, matches.length - 1));
  const optionId = (i: number) => `${listId}-option-${i}`;

  const track = (element: HTMLTextAreaElement) => {
    setCaret(element.selectionStart ?? element.value.length);
    setActive(0);
    if (dismissed !== null && findSlashTrigger(element.value, element.selectionStart)?.start !== dismissed)
      setDismissed(null);
  };

  const pick = (reply: CannedReplyView) => {
    if (!trigger) return;
    const inserted = renderCannedReply(reply.text, allVars);
    const next = text.slice(0, trigger.start) + inserted + text.slice(trigger.start + 1 + trigger.query.length);
    const at = trigger.start + inserted.length;
    setText(next);
    setCaret(at);
    setActive(0);
    requestAnimationFrame(() => {
      const box = textarea.current;
      if (!box) return;
      box.focus();
      box.setSelectionRange(at, at);
    });
  };

  /** The box's keys while the picker is open; true when the picker took the key. */
  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>): boolean => {
    if (!open || event.nativeEvent.isComposing) return false;
    if (event.key === "Escape") {
      event.preventDefault();
      setDismissed(trigger.start);
      return true;
    }
    if (matches.length === 0) return false;
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      const step = event.key === "ArrowDown" ? 1 : -1;
      setActive((current + step + matches.length) % matches.length);
      return true;
    }
    if ((event.key === "Enter" && !event.shiftKey) || event.key === "Tab") {
      event.preventDefault();
      pick(matches[current]!);
      return true;
    }
    return false;
  };

  /** Spread on the text box: it announces the list and which option is highlighted. */
  const boxProps = {
    "aria-autocomplete": "list" as const,
    "aria-controls": open ? listId : undefined,
    "aria-activedescendant": open && matches.length > 0 ? optionId(current) : undefined,
    onSelect: (event: { currentTarget: HTMLTextAreaElement }) => track(event.currentTarget),
  };

  const list = open ? (
    <div className="absolute right-3 bottom-full left-3 z-20 mb-1 overflow-hidden rounded-md border border-slate-200 bg-white shadow-lg">
      <p className="border-b border-slate-100 px-3 py-1.5 text-xs text-slate-500">
        Canned replies{trigger.query ? ` matching “${trigger.query}”` : ""} · ↑↓ to choose, Enter to insert, Esc to
        close
      </p>
      <ul id={listId} role="listbox" aria-label="Canned replies" className="max-h-64 overflow-y-auto py-1">
        {matches.length === 0 ? (
          <li role="option" aria-selected={false} aria-disabled="true" className="px-3 py-2 text-sm text-slate-500">
            {replies.isPending
              ? "Loading canned replies…"
              : (replies.data ?? []).length === 0
                ? "No canned replies yet: add them on the Canned replies page."
                : "No canned reply matches."}
          </li>
        ) : (
          matches.map((reply, i) => (
            <li
              key={reply.id}
              id={optionId(i)}
              role="option"
              aria-selected={i === current}
              onMouseDown={(event) => event.preventDefault()}
              onMouseEnter={() => setActive(i)}
              onClick={() => pick(reply)}
              className={`cursor-pointer px-3 py-2 text-sm ${i === current ? "bg-indigo-50" : ""}`}
            >
              <span className="font-mono font-semibold text-slate-900">/{reply.shortcut}</span>{" "}
              <span className="text-slate-600">{renderCannedReply(reply.text, allVars)}</span>
            </li>
          ))
        )}
      </ul>
    </div>
  ) : null;

  return { open, list, onKeyDown, boxProps, track };
}
