import type { ReactNode } from "react";
import { AccountTime } from "@/components/ui/account-time";
import type { NoteView } from "@/lib/notes/note-schema";

/** Messages and notes in one list, by time (a message and a note of the same millisecond: the message first). */
export function byTime<M extends { createdAt: string }>(
  messages: M[],
  notes: NoteView[],
): ({ kind: "message"; item: M } | { kind: "note"; item: NoteView })[] {
  const out: ({ kind: "message"; item: M } | { kind: "note"; item: NoteView })[] = [];
  const sorted = [...notes].sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
  let n = 0;
  for (const m of messages) {
    while (n < sorted.length && sorted[n]!.createdAt < m.createdAt) out.push({ kind: "note", item: sorted[n++]! });
    out.push({ kind: "message", item: m });
  }
  while (n < sorted.length) out.push({ kind: "note", item: sorted[n++]! });
  return out;
}

/** The body with each mentioned staff member's @name stressed. */
function withMentions(note: NoteView): ReactNode[] {
  const names = note.mentions.map((m) => m.name).filter(Boolean);
  if (names.length === 0) return [note.body];
  const escaped = names.map((n) => n.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).sort((a, b) => b.length - a.length);
  const pattern = new RegExp(`(@(?:${escaped.join("|")}|${escaped.map((n) => n.split(/\s+/)[0]).join("|")}))`, "giu");
  return note.body.split(pattern).map((part, i) =>
    i % 2 === 1 ? (
      <strong key={i} className="font-semibold text-amber-900">
        {part}
      </strong>
    ) : (
      part
    ),
  );
}

/** An internal note in the thread: amber, labelled, never with delivery ticks. */
export function NoteItem({ note }: { note: NoteView }) {
  return (
    <li className="flex justify-center" data-note-id={note.id}>
      <div
        aria-label={`Note by ${note.authorName}`}
        role="note"
        className="w-full max-w-[85%] rounded-lg border border-amber-300 bg-amber-50 px-3.5 py-2 text-sm text-amber-950 sm:max-w-[70%]"
      >
        <p className="mb-0.5 text-xs font-medium text-amber-800">
          Note by {note.authorName} · <AccountTime iso={note.createdAt} /> · only staff see it
        </p>
        <p className="break-words whitespace-pre-wrap">{withMentions(note)}</p>
      </div>
    </li>
  );
}
