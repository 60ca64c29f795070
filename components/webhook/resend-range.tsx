"use client";

import { useState, type FormEvent } from "react";
import { useCountFailedEvents, useResendEvents } from "@/components/data/use-webhook";
import { Button } from "@/components/ui/button";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { TextField } from "@/components/ui/field";
import { serverFieldErrors, zodFieldErrors, type FieldErrors } from "@/components/ui/field-errors";
import { formatTime } from "@/components/ui/format-time";
import { localInputToIso } from "@/components/ui/local-time-input";
import { Notice } from "@/components/ui/notice";
import { resendInput } from "@/lib/webhooks/webhook-schemas";

/** Every failed event created in a time range, sent again after a question that says how many. */
export function ResendRange() {
  const countFailed = useCountFailedEvents();
  const [since, setSince] = useState("");
  const [until, setUntil] = useState("");
  const [errors, setErrors] = useState<FieldErrors>({});
  const [pending, setPending] = useState<{ since: string; until: string; count: number } | null>(null);
  const [notice, setNotice] = useState<{ tone: "success" | "info"; text: string } | null>(null);
  const [counting, setCounting] = useState(false);

  const resend = useResendEvents<{ since: string; until: string }>({
    onSuccess: ({ resent }) => {
      setPending(null);
      setNotice({ tone: "success", text: `${resent} failed event${resent === 1 ? " is" : "s are"} being sent again.` });
    },
    onError: (error) => {
      setPending(null);
      setErrors(serverFieldErrors(error));
    },
  });

  async function ask(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setNotice(null);
    const range = { since: localInputToIso(since) ?? "", until: localInputToIso(until) ?? "" };
    const parsed = resendInput.safeParse(range);
    if (!parsed.success) {
      const found = zodFieldErrors(parsed);
      // The schema is a union ({eventId} or {since, until}): say which of the two dates is missing.
      if (!range.since) found.since = "Pick the start of the range";
      else if (!range.until) found.until = "Pick the end of the range";
      else if (!found.until) found.until = "Must be later than From";
      delete found[""];
      setErrors(found);
      return;
    }
    setErrors({});
    setCounting(true);
    try {
      // The same filter the resend applies: failed events created in [since, until).
      const total = await countFailed(range);
      if (total === 0) setNotice({ tone: "info", text: "No failed events were created in that range." });
      else setPending({ ...range, count: total });
    } catch (error) {
      setErrors(serverFieldErrors(error));
    } finally {
      setCounting(false);
    }
  }

  return (
    <form onSubmit={ask} noValidate className="mt-6 border-t border-slate-100 pt-5">
      <h3 className="text-sm font-semibold text-slate-900">Resend failed events</h3>
      <p className="mt-0.5 text-sm text-slate-500">
        Events that ran out of retries (your receiver was down too long, say), created between two times.
      </p>
      <div className="mt-3 grid items-start gap-3 sm:grid-cols-[1fr_1fr_auto]">
        <TextField
          label="Failed from"
          type="datetime-local"
          value={since}
          onChange={(e) => setSince(e.target.value)}
          error={errors.since}
        />
        <TextField
          label="Failed to"
          type="datetime-local"
          value={until}
          onChange={(e) => setUntil(e.target.value)}
          error={errors.until}
        />
        <Button type="submit" variant="secondary" className="sm:mt-6" disabled={counting || resend.isPending}>
          {counting ? "Counting…" : "Resend failed"}
        </Button>
      </div>
      {errors[""] && (
        <Notice tone="error" className="mt-3">
          {errors[""]}
        </Notice>
      )}
      {notice && (
        <Notice tone={notice.tone} className="mt-3">
          {notice.text}
        </Notice>
      )}
      <ConfirmDialog
        open={pending !== null}
        title={`Resend ${pending?.count ?? 0} failed event${pending?.count === 1 ? "" : "s"}?`}
        confirmLabel="Resend"
        tone="primary"
        busy={resend.isPending}
        onConfirm={() => pending && resend.mutate({ since: pending.since, until: pending.until })}
        onCancel={() => setPending(null)}
      >
        {pending && (
          <p>
            {pending.count} failed event{pending.count === 1 ? " was" : "s were"} created between{" "}
            {formatTime(pending.since)} and {formatTime(pending.until)}. Each gets a fresh retry schedule starting now,
            with the same <code className="font-mono text-xs">webhook-id</code> as before.
          </p>
        )}
      </ConfirmDialog>
    </form>
  );
}
