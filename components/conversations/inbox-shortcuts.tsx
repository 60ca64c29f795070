"use client";

import { useEffect, useState } from "react";
import { useRouter } from "next/navigation";
import { useQueryClient } from "@tanstack/react-query";
import { useAccountApi, useViewer } from "@/components/portal/portal-context";
import { apiCall } from "@/components/ui/api-client";
import { useModalDialog } from "@/components/ui/use-modal-dialog";
import { Button } from "@/components/ui/button";
import type { ConversationList } from "./thread-types";

/** The inbox's keys, as the "?" dialog lists them (docs/CONVERSATIONS.md lists the same). */
export const SHORTCUTS: { keys: string; does: string }[] = [
  { keys: "j", does: "Next conversation" },
  { keys: "k", does: "Previous conversation" },
  { keys: "r", does: "Reply: put the cursor in the message box" },
  { keys: "e", does: "Resolve the open conversation" },
  { keys: "a", does: "Assign the open conversation to me" },
  { keys: "/", does: "Search conversations" },
  { keys: "?", does: "Show these shortcuts" },
  { keys: "↑ ↓ Enter", does: "Move through the list and open a conversation" },
];

/** True while the user writes somewhere: a key typed there is text, never a shortcut. */
function typing(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  return target.closest("input, textarea, select, [contenteditable=''], [contenteditable='true']") !== null;
}

/** The accessible name a button goes by (its aria-label, else its text), for the buttons other parts of the page own. */
function buttonNamed(name: string): HTMLButtonElement | null {
  const main = document.querySelector("main") ?? document;
  for (const button of main.querySelectorAll<HTMLButtonElement>("button, [role=button]")) {
    const label = (button.getAttribute("aria-label") ?? button.textContent ?? "").trim();
    if (label === name && !button.hasAttribute("disabled")) return button;
  }
  return null;
}

/** The list's rows, when the list is on screen (on a narrow screen a thread hides it). */
const rows = () => [...document.querySelectorAll<HTMLAnchorElement>("a[data-row]")].filter((row) => row.offsetParent);
const conversationIdOf = (path: string) => /^\/conversations\/([^/]+)$/.exec(path)?.[1] ?? null;

/** Focuses the list's search box, on this page or once the list has loaded. */
function focusSearch(tries = 100): void {
  const box = [...document.querySelectorAll<HTMLInputElement>("input[type=search], [role=searchbox]")].find(
    (element) => element.offsetParent,
  );
  if (box) {
    box.focus();
    box.select();
  } else if (tries > 0) setTimeout(() => focusSearch(tries - 1), 50);
}

/**
 * The inbox's keyboard shortcuts (Gmail's and Front's letters): j/k next and previous conversation, r reply, e resolve,
 * a assign to me, / search, ? this list. Keys typed in a text box are text; with Ctrl, Alt or Meta they belong to
 * the browser.
 */
export function InboxShortcuts() {
  const router = useRouter();
  const viewer = useViewer();
  const api = useAccountApi();
  const cache = useQueryClient();
  const [open, setOpen] = useState(false);
  const dialog = useModalDialog(open);

  useEffect(() => {
    // The conversation after or before the open one, in the order of the list the viewer last saw.
    const step = async (by: 1 | -1) => {
      // The address bar, not the rendered path: right after a conversation opens, the URL has changed a moment
      // before this handler is attached again with the new path, and a key pressed then must step from the thread.
      const openId = conversationIdOf(window.location.pathname);
      const list = rows();
      // In the list, the keys move the focus; in a thread (the list beside it or not), they open the next one.
      if (!openId && list.length > 0) {
        const at = list.findIndex((row) => row === document.activeElement);
        const current = at >= 0 ? at : list.findIndex((row) => row.getAttribute("aria-current") === "true");
        const next = list[Math.max(0, Math.min(list.length - 1, current < 0 ? 0 : current + by))];
        next?.focus();
        return;
      }
      if (!openId) return;
      let ids = cache
        .getQueriesData<ConversationList>({ queryKey: ["conversations", "list"] })
        .map(([, data]) => data?.conversations.map((c) => c.id) ?? [])
        .find((found) => found.includes(openId));
      if (!ids) {
        const answer = await apiCall<ConversationList>(api("/conversations"), { query: { count: 100 } });
        ids = answer.conversations.map((c) => c.id);
      }
      const at = ids.indexOf(openId);
      const next = at < 0 ? undefined : ids[at + by];
      if (next) router.push(`/conversations/${next}`);
    };

    const onKeyDown = (event: KeyboardEvent) => {
      if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return;
      if (typing(event.target) || dialog.current?.open) return;
      const act = (run: () => void) => {
        event.preventDefault();
        run();
      };
      switch (event.key) {
        case "j":
          return act(() => void step(1).catch(() => {}));
        case "k":
          return act(() => void step(-1).catch(() => {}));
        case "r": {
          const box = document.querySelector<HTMLTextAreaElement>("#composer-message");
          if (box && !box.disabled) act(() => box.focus());
          return;
        }
        case "/":
          return act(() => {
            const shown = [...document.querySelectorAll<HTMLElement>("input[type=search], [role=searchbox]")].some(
              (element) => element.offsetParent,
            );
            if (!shown) router.push("/conversations");
            focusSearch();
          });
        case "?":
          return act(() => setOpen(true));
        case "e": {
          const resolve = buttonNamed("Resolve");
          if (resolve) act(() => resolve.click());
          return;
        }
        case "a": {
          const direct = buttonNamed("Assign to me");
          const assign = direct ?? buttonNamed("Assign");
          if (!assign) return;
          return act(() => {
            assign.click();
            if (direct) return;
            // The Assign button opens a list of staff: pick the viewer in it once it is there.
            const me = viewer.name || viewer.email;
            let tries = 100;
            const pick = () => {
              const options = document.querySelectorAll<HTMLElement>(
                "[role=option], [role=menuitem], [role=menuitemradio]",
              );
              // The viewer's own option may say so ("Ana Lima (you)").
              const mine = [...options].find((o) => {
                const text = (o.getAttribute("aria-label") ?? o.textContent ?? "").trim();
                return text === me || text === `${me} (you)`;
              });
              if (mine) mine.click();
              else if (tries-- > 0) setTimeout(pick, 50);
            };
            setTimeout(pick, 0);
          });
        }
      }
    };
    window.addEventListener("keydown", onKeyDown);
    return () => window.removeEventListener("keydown", onKeyDown);
  }, [api, cache, router, viewer.email, viewer.name]);

  return (
    <dialog
      ref={dialog}
      aria-labelledby="shortcuts-title"
      onClose={() => setOpen(false)}
      className="m-auto w-full max-w-md rounded-lg border border-slate-200 bg-white p-0 text-slate-900 shadow-xl backdrop:bg-slate-900/40"
    >
      <div className="p-5">
        <h2 id="shortcuts-title" className="text-base font-semibold">
          Keyboard shortcuts
        </h2>
        <p className="mt-1 text-sm text-slate-600">In Conversations, when you are not typing in a box.</p>
        <dl className="mt-3 grid grid-cols-[max-content_1fr] gap-x-4 gap-y-2 text-sm">
          {SHORTCUTS.map((s) => (
            <div key={s.keys} className="contents">
              <dt>
                {s.keys.split(" ").map((k) => (
                  <kbd
                    key={k}
                    className="mr-1 rounded border border-slate-300 bg-slate-50 px-1.5 py-0.5 font-mono text-xs text-slate-800"
                  >
                    {k}
                  </kbd>
                ))}
              </dt>
              <dd className="text-slate-700">{s.does}</dd>
            </div>
          ))}
        </dl>
      </div>
      <div className="flex justify-end border-t border-slate-100 bg-slate-50 px-5 py-3">
        <Button variant="secondary" onClick={() => setOpen(false)} autoFocus>
          Close
        </Button>
      </div>
    </dialog>
  );
}
