"use client";

import { useState, type FormEvent } from "react";
import { useViewer } from "@/components/portal/portal-context";
import { Button } from "@/components/ui/button";
import { SelectField, TextAreaField, TextField } from "@/components/ui/field";
import { Notice } from "@/components/ui/notice";
import { useFieldErrors } from "@/components/ui/use-field-errors";
import {
  createCannedReplySchema,
  type CannedReplyScope,
  type CannedReplyView,
} from "@/lib/canned-replies/canned-reply-schema";
import { CANNED_REPLY_VARIABLES } from "@/lib/canned-replies/render-canned-reply";
import { useCreateCannedReply, useUpdateCannedReply } from "./use-canned-replies";

const FIELDS = ["shortcut", "text", "scope"];

/** Creates a canned reply, or edits `reply`; checked with the schema the route parses with. */
export function CannedReplyForm({ reply, onDone }: { reply?: CannedReplyView; onDone: () => void }) {
  const viewer = useViewer();
  const admin = viewer.role === "admin";
  const [shortcut, setShortcut] = useState(reply?.shortcut ?? "");
  const [text, setText] = useState(reply?.text ?? "");
  const [scope, setScope] = useState<CannedReplyScope>(reply?.scope ?? (admin ? "account" : "personal"));
  const { errors, check, refused, unplaced } = useFieldErrors({ fields: FIELDS, sentence: false });
  const callbacks = { onSuccess: onDone, onError: refused };
  const create = useCreateCannedReply(callbacks);
  const update = useUpdateCannedReply(reply?.id ?? "", callbacks);
  const mutation = reply ? update : create;

  function submit(event: FormEvent) {
    event.preventDefault();
    const parsed = createCannedReplySchema.safeParse({ shortcut, text, ...(admin ? { scope } : {}) });
    if (!check(parsed)) return;
    if (reply) update.mutate(parsed.data);
    else create.mutate(parsed.data);
  }

  const refusal = unplaced(mutation.error);
  return (
    <form
      onSubmit={submit}
      noValidate
      className="space-y-3"
      aria-label={reply ? "Edit canned reply" : "New canned reply"}
    >
      <div className="grid gap-3 sm:grid-cols-[minmax(0,14rem)_minmax(0,1fr)]">
        <TextField
          label="Shortcut"
          name="shortcut"
          autoComplete="off"
          placeholder="thanks"
          value={shortcut}
          onChange={(event) => setShortcut(event.target.value)}
          error={errors.shortcut}
          hint="Type / and this in a reply to find it."
        />
        {admin ? (
          <SelectField
            label="Who sees it"
            name="scope"
            value={scope}
            onChange={(event) => setScope(event.target.value as CannedReplyScope)}
            error={errors.scope}
          >
            <option value="account">Everyone in the account</option>
            <option value="personal">Only me</option>
          </SelectField>
        ) : (
          <p className="self-end pb-2 text-sm text-slate-500">Only you see your canned replies.</p>
        )}
      </div>
      <TextAreaField
        label="Text"
        name="text"
        rows={4}
        value={text}
        onChange={(event) => setText(event.target.value)}
        error={errors.text}
        hint={
          <>
            Variables:{" "}
            {CANNED_REPLY_VARIABLES.map((v, i) => (
              <span key={v}>
                {i > 0 && ", "}
                <code className="font-mono">{`{{${v}}}`}</code>
              </span>
            ))}
            . A variable with no value (a contact without a name) is left out.
          </>
        }
      />
      {refusal ? <Notice tone="error">{refusal}</Notice> : null}
      <div className="flex gap-2">
        <Button type="submit" disabled={mutation.isPending}>
          {mutation.isPending ? "Saving…" : reply ? "Save changes" : "Save canned reply"}
        </Button>
        <Button type="button" variant="ghost" onClick={onDone}>
          Cancel
        </Button>
      </div>
    </form>
  );
}
