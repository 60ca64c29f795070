"use client";

import { useState, type FormEvent } from "react";
import { useChangeOpt } from "@/components/data/use-opt-outs";
import { Button } from "@/components/ui/button";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { TextField } from "@/components/ui/field";
import { useFieldErrors } from "@/components/ui/use-field-errors";
import { formatNumber } from "@/components/ui/format-time";
import { Notice } from "@/components/ui/notice";
import { Panel } from "@/components/ui/page-header";
import { optChangeInput, type OptChangeInput } from "@/lib/opt/opt-schemas";

/** An admin opts a number out (asked by phone or e-mail) or back in (asked in writing), with a note for the trail. */
export function ManualOptForm() {
  const [number, setNumber] = useState("");
  const [note, setNote] = useState("");
  const { errors, check, refused } = useFieldErrors();
  const [done, setDone] = useState<string | null>(null);
  const [confirmIn, setConfirmIn] = useState<OptChangeInput | null>(null);

  const change = useChangeOpt({
    onSuccess: ({ event }) => {
      setConfirmIn(null);
      setDone(
        `${formatNumber(event.number)} is opted ${event.action === "out" ? "out: sends to it are refused" : "back in"}.`,
      );
      setNumber("");
      setNote("");
    },
    onError: (error) => {
      setConfirmIn(null);
      refused(error);
    },
  });

  function submit(action: "in" | "out") {
    setDone(null);
    const body = { number, action, ...(note.trim() ? { note } : {}) };
    const parsed = optChangeInput.safeParse(body);
    if (!check(parsed)) return;
    if (action === "in") setConfirmIn(parsed.data);
    else change.mutate(parsed.data);
  }

  return (
    <Panel
      title="Opt a number out or in"
      description="For requests that did not come as a keyword: by phone, by e-mail, or a flagged message. Your e-mail is recorded with the change."
    >
      <form
        noValidate
        onSubmit={(event: FormEvent<HTMLFormElement>) => {
          event.preventDefault();
          submit("out");
        }}
        className="space-y-4"
      >
        <div className="grid gap-4 sm:grid-cols-2">
          <TextField
            label="Number"
            name="number"
            inputMode="tel"
            autoComplete="off"
            placeholder="+14155550123"
            value={number}
            onChange={(e) => setNumber(e.target.value)}
            error={errors.number}
          />
          <TextField
            label="Note"
            name="note"
            autoComplete="off"
            placeholder="Asked by phone, 22 Nov"
            value={note}
            onChange={(e) => setNote(e.target.value)}
            error={errors.note}
            hint="Optional: how the request was made."
          />
        </div>
        {errors[""] && <Notice tone="error">{errors[""]}</Notice>}
        {errors.action && <Notice tone="error">{errors.action}</Notice>}
        {done && <Notice tone="success">{done}</Notice>}
        <div className="flex flex-wrap gap-2">
          <Button type="submit" variant="danger" disabled={change.isPending}>
            Opt out
          </Button>
          <Button variant="secondary" disabled={change.isPending} onClick={() => submit("in")}>
            Opt in
          </Button>
        </div>
      </form>
      <ConfirmDialog
        open={confirmIn !== null}
        title={`Opt ${confirmIn ? formatNumber(confirmIn.number.replace(/^\+/, "")) : ""} back in?`}
        confirmLabel="Opt in"
        tone="primary"
        busy={change.isPending}
        onConfirm={() => confirmIn && change.mutate(confirmIn)}
        onCancel={() => setConfirmIn(null)}
      >
        <p>
          Only when the person asked for it (in writing, say): messages to this number are sent again. The trail records
          that you did it{note.trim() ? ", with your note" : ""}.
        </p>
      </ConfirmDialog>
    </Panel>
  );
}
