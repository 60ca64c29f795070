"use client";

import { useState, type FormEvent, type KeyboardEvent, type ReactNode } from "react";
import { Button } from "@/components/ui/button";
import { failureText } from "@/components/ui/api-client";
import { addNoteSchema } from "@/lib/notes/note-schema";
import { useAddNote } from "./note-data";

export type ComposerMode = "reply" | "note";

/** "Reply" / "Note": which the composer writes. Toggle buttons, the pressed one is the current mode. */
export function ComposerModeToggle({ mode, onChange }: { mode: ComposerMode; onChange: (mode: ComposerMode) => void }) {
  const item = (value: ComposerMode, label: string) => (
    <button
      type="button"
      aria-pressed={mode === value}
      onClick={() => onChange(value)}
      className={`rounded-md px-2.5 py-1 text-xs font-medium focus-visible:outline-2 focus-visible:outline-indigo-600 ${
        mode === value
          ? value === "note"
            ? "bg-amber-200 text-amber-950"
            : "bg-indigo-600 text-white"
          : "text-slate-600 hover:bg-slate-100"
      }`}
    >
      {label}
    </button>
  );
  return (
    <div
      role="group"
      aria-label="Write"
      className="mb-2 inline-flex gap-1 rounded-lg bg-slate-50 p-0.5 ring-1 ring-slate-200"
    >
      {item("reply", "Reply")}
      {item("note", "Note")}
    </div>
  );
}

/**
 * The composer in note mode: an internal note only staff see, never sent to the phone. @name mentions a staff
 * member (first name or full name), who is notified. Enter adds it, Shift+Enter breaks the line.
 */
export function NoteComposer({ conversationId, toggle }: { conversationId: string; toggle: ReactNode }) {
  const [body, setBody] = useState("");
  const [error, setError] = useState<string | null>(null);
  const add = useAddNote(conversationId);

  const submit = () => {
    const parsed = addNoteSchema.safeParse({ body });
    if (!parsed.success) {
      setError(parsed.error.issues[0]?.message ?? "Check the note");
      return;
    }
    setError(null);
    add.mutate(parsed.data.body, { onSuccess: () => setBody("") });
  };
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    submit();
  };
  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === "Enter" && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      submit();
    }
  };

  return (
    <form onSubmit={onSubmit} className="border-t border-amber-300 bg-amber-50 p-3" aria-label="Internal note">
      {toggle}
      <textarea
        aria-label="Internal note"
        value={body}
        onChange={(e) => setBody(e.target.value)}
        onKeyDown={onKeyDown}
        rows={3}
        placeholder="Internal note — only staff see it"
        className="w-full resize-y rounded-md border border-amber-300 bg-white px-3 py-2 text-sm"
      />
      <div className="mt-2 flex flex-wrap items-center justify-between gap-2">
        <p className="text-xs text-amber-900">Never sent to the phone. Type @ and a name to notify a colleague.</p>
        <Button type="submit" disabled={add.isPending}>
          {add.isPending ? "Adding…" : "Add note"}
        </Button>
      </div>
      {(error || add.error) && (
        <p role="alert" className="mt-1 text-sm text-red-700">
          {error ?? failureText(add.error)}
        </p>
      )}
    </form>
  );
}
