"use client";

import { useId, useState, type FormEvent } from "react";
import { useRouter } from "next/navigation";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useAccountApi } from "@/components/portal/portal-context";
import { apiCall } from "@/components/ui/api-client";
import { useModalDialog } from "@/components/ui/use-modal-dialog";
import { Button } from "@/components/ui/button";
import { SelectField, TextAreaField, TextField } from "@/components/ui/field";
import { formatNumber } from "@/components/ui/format-time";
import { Notice } from "@/components/ui/notice";
import { keys } from "@/components/ui/query-keys";
import { useFieldErrors } from "@/components/ui/use-field-errors";
import { startConversationSchema, type StartConversationInput } from "@/lib/conversations/conversation-schema";
import { newClientId } from "./composer";
import { countForComposer } from "./segment-counter";

const FIELDS = ["from", "to", "body"];

/**
 * "New conversation": staff write first to a phone, from the account number they pick. The message goes out as a
 * reply does (the API's send path); the thread it opened, or the one there already was with that phone, opens.
 */
export function NewConversation({ accountNumbers }: { accountNumbers: string[] }) {
  const [open, setOpen] = useState(false);
  const dialog = useModalDialog(open);
  const titleId = useId();
  if (accountNumbers.length === 0) return null;
  return (
    <>
      <Button size="sm" onClick={() => setOpen(true)}>
        New conversation
      </Button>
      <dialog
        ref={dialog}
        aria-labelledby={titleId}
        onCancel={(event) => {
          event.preventDefault();
          setOpen(false);
        }}
        className="m-auto w-full max-w-lg rounded-lg border border-slate-200 p-0 shadow-xl backdrop:bg-slate-900/40"
      >
        {open && <StartForm accountNumbers={accountNumbers} titleId={titleId} onClose={() => setOpen(false)} />}
      </dialog>
    </>
  );
}

function StartForm({
  accountNumbers,
  titleId,
  onClose,
}: {
  accountNumbers: string[];
  titleId: string;
  onClose: () => void;
}) {
  const router = useRouter();
  const api = useAccountApi();
  const cache = useQueryClient();
  const [from, setFrom] = useState(`+${accountNumbers[0]}`);
  const [to, setTo] = useState("");
  const [body, setBody] = useState("");
  // One client id for this message: a send retried after a lost answer is not sent twice.
  const [clientId] = useState(newClientId);
  const { errors, check, refused, unplaced } = useFieldErrors({ fields: FIELDS, sentence: false });
  const start = useMutation({
    mutationFn: (input: StartConversationInput) =>
      apiCall<{ conversationId: string }>(api("/conversations"), { method: "POST", body: input }),
    onSuccess: async ({ conversationId }) => {
      await cache.invalidateQueries({ queryKey: keys.conversations.lists });
      onClose();
      router.push(`/conversations/${encodeURIComponent(conversationId)}`);
    },
    onError: refused,
  });
  const counter = countForComposer(body);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const parsed = startConversationSchema.safeParse({ from, to: to.replace(/[\s().-]/g, ""), body, clientId });
    if (check(parsed)) start.mutate(parsed.data);
  };

  const refusal = unplaced(start.error);
  return (
    <form onSubmit={submit} noValidate aria-labelledby={titleId}>
      <div className="space-y-3 p-5">
        <h2 id={titleId} className="text-base font-semibold text-slate-900">
          New conversation
        </h2>
        <SelectField
          label="From"
          name="from"
          value={from}
          onChange={(e) => setFrom(e.target.value)}
          error={errors.from}
        >
          {accountNumbers.map((n) => (
            <option key={n} value={`+${n}`}>
              {formatNumber(n)}
            </option>
          ))}
        </SelectField>
        <TextField
          label="To"
          name="to"
          type="tel"
          autoComplete="off"
          placeholder="+14155550123"
          value={to}
          onChange={(e) => setTo(e.target.value)}
          error={errors.to}
          hint="The phone number with its country code."
        />
        <TextAreaField
          label="Message"
          name="body"
          rows={4}
          value={body}
          onChange={(e) => setBody(e.target.value)}
          error={errors.body}
          hint={`${counter.characters} characters · ${counter.numSegments} ${counter.numSegments === 1 ? "segment" : "segments"}`}
        />
        {refusal && <Notice tone="error">{refusal}</Notice>}
      </div>
      <div className="flex justify-end gap-2 border-t border-slate-100 bg-slate-50 px-5 py-3">
        <Button type="button" variant="secondary" onClick={onClose} disabled={start.isPending}>
          Cancel
        </Button>
        <Button type="submit" disabled={start.isPending}>
          {start.isPending ? "Sending…" : "Send"}
        </Button>
      </div>
    </form>
  );
}
