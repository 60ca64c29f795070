"use client";

import { useState } from "react";
import { useRevealSecret, useRotateSecret } from "@/components/data/use-webhook";
import { failureText } from "@/components/ui/api-client";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { CopyButton } from "@/components/ui/copy-button";
import { formatTime } from "@/components/ui/format-time";
import { LocalTime } from "@/components/ui/local-time";
import { Notice } from "@/components/ui/notice";
import { Panel } from "@/components/ui/page-header";
import type { WebhookSettings } from "@/lib/webhooks/manage-webhook";

type Secret = WebhookSettings["secrets"][number];

/** The secret in full is fetched only when an admin presses Reveal (audited), and forgotten again on Hide. */
function SecretRow({ secret, label }: { secret: Secret; label: string }) {
  const [shown, setShown] = useState<string | null>(null);
  const reveal = useRevealSecret(secret.id, {
    onSuccess: ({ secret: revealed }) => setShown(revealed.secret),
  });
  return (
    <div className="space-y-2">
      <div className="flex flex-wrap items-center gap-2 text-sm">
        <span className="font-medium text-slate-700">{label}</span>
        {secret.expiresAt ? (
          <Badge tone="amber">
            signs until&nbsp;
            <LocalTime iso={secret.expiresAt} />
          </Badge>
        ) : (
          <Badge tone="green">current</Badge>
        )}
        <span className="text-xs text-slate-500">
          created <LocalTime iso={secret.createdAt} />
        </span>
      </div>
      <div className="flex flex-wrap items-center gap-2">
        <code
          className="min-w-0 flex-1 rounded-md border border-slate-200 bg-slate-50 px-3 py-2 font-mono text-xs break-all text-slate-800"
          aria-label={`${label} signing secret`}
        >
          {shown ?? `whsec_${"•".repeat(20)}${secret.hint.slice(-4)}`}
        </code>
        <Button
          variant="secondary"
          size="sm"
          onClick={() => (shown ? setShown(null) : reveal.mutate())}
          aria-pressed={shown !== null}
          disabled={reveal.isPending}
        >
          {shown ? "Hide" : "Reveal"}
        </Button>
        {shown && <CopyButton text={shown} />}
      </div>
      {reveal.isError && <Notice tone="error">{failureText(reveal.error)}</Notice>}
    </div>
  );
}

/** The secrets receivers verify signatures with: hidden until revealed; rotation keeps the old one signing a while. */
export function SigningSecret({ settings, overlapHours }: { settings: WebhookSettings; overlapHours: number }) {
  // When the current secret would stop signing, fixed when the question is asked.
  const [confirm, setConfirm] = useState<Date | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const [current, ...previous] = settings.secrets;
  const rotate = useRotateSecret(overlapHours, {
    onSuccess: ({ webhook }) => {
      setConfirm(null);
      const old = webhook.secrets[1];
      setDone(
        old?.expiresAt
          ? `A new secret signs from now on. The previous one signs beside it until ${formatTime(old.expiresAt)}.`
          : "A new secret signs from now on.",
      );
    },
    onError: () => setConfirm(null),
  });
  return (
    <Panel
      title="Signing secret"
      description="Every event is signed (Standard Webhooks). Your receiver verifies the signature with this secret."
    >
      {!current ? (
        <p className="text-sm text-slate-500">The secret is made when you first save a URL.</p>
      ) : (
        <div className="space-y-4">
          <SecretRow key={current.id} secret={current} label="Secret" />
          {previous.map((secret) => (
            <SecretRow key={secret.id} secret={secret} label="Previous secret" />
          ))}
          {done && <Notice tone="success">{done}</Notice>}
          {rotate.isError && <Notice tone="error">{failureText(rotate.error)}</Notice>}
          <Button variant="secondary" onClick={() => setConfirm(new Date(Date.now() + overlapHours * 3600_000))}>
            Rotate secret
          </Button>
        </div>
      )}
      <ConfirmDialog
        open={confirm !== null}
        title="Rotate the signing secret?"
        confirmLabel="Rotate secret"
        tone="primary"
        busy={rotate.isPending}
        onConfirm={() => rotate.mutate()}
        onCancel={() => setConfirm(null)}
      >
        <p>
          A new secret is made now. The current one keeps signing beside it for {overlapHours} h, until{" "}
          <strong>{confirm ? formatTime(confirm) : ""}</strong>: each event carries both signatures, so your receiver
          accepts events whichever secret it holds. Give it the new secret before then.
        </p>
        {previous.length > 0 && <p className="mt-2">A previous secret still in its overlap keeps its own end time.</p>}
      </ConfirmDialog>
    </Panel>
  );
}
