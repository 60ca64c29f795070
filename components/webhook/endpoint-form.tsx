"use client";

import { useState, type FormEvent } from "react";
import { useRemoveWebhook, useSaveWebhook } from "@/components/data/use-webhook";
import { Button } from "@/components/ui/button";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { TextField } from "@/components/ui/field";
import { zodFieldErrors } from "@/components/ui/field-errors";
import { useFieldErrors } from "@/components/ui/use-field-errors";
import { Notice } from "@/components/ui/notice";
import { Panel } from "@/components/ui/page-header";
import type { WebhookSettings } from "@/lib/webhooks/manage-webhook";
import { webhookSettingsInput } from "@/lib/webhooks/webhook-schemas";

/** The URL and the one header; the header's value is write-only (the page shows only that one is set). */
export function EndpointForm({ settings, allowPrivate }: { settings: WebhookSettings; allowPrivate: boolean }) {
  const [url, setUrl] = useState(settings.url ?? "");
  const [failoverUrl, setFailoverUrl] = useState(settings.failoverUrl ?? "");
  const [headerName, setHeaderName] = useState(settings.headerName ?? "");
  const [headerValue, setHeaderValue] = useState("");
  const { errors, setErrors, refused } = useFieldErrors();
  const [saved, setSaved] = useState<string | null>(null);
  const [confirmRemove, setConfirmRemove] = useState(false);

  // The stored value still applies while the header keeps its name: leaving the input empty keeps it.
  const keepsValue =
    settings.headerValueHint !== null &&
    settings.headerName !== null &&
    settings.headerName.toLowerCase() === headerName.trim().toLowerCase();

  const save = useSaveWebhook({
    onSuccess: ({ webhook }) => {
      setHeaderValue("");
      setUrl(webhook.url ?? "");
      setFailoverUrl(webhook.failoverUrl ?? "");
      setHeaderName(webhook.headerName ?? "");
      setSaved(settings.url ? "Saved. The next events go to this URL." : "Saved. Events are written from now on.");
    },
    onError: refused,
  });

  const remove = useRemoveWebhook({
    onSuccess: () => {
      setConfirmRemove(false);
      setUrl("");
      setFailoverUrl("");
      setHeaderName("");
      setHeaderValue("");
      setSaved("The webhook is removed: no events are written for this account now.");
    },
    onError: (error) => {
      setConfirmRemove(false);
      refused(error);
    },
  });

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setSaved(null);
    const body = {
      url,
      failoverUrl: failoverUrl.trim() || null,
      headerName: headerName.trim() || null,
      ...(headerValue.trim() ? { headerValue } : {}),
    };
    const parsed = webhookSettingsInput.safeParse(body);
    const found = zodFieldErrors(parsed);
    if (body.headerName && !headerValue.trim() && !keepsValue) found.headerValue ??= "Enter the header's value";
    setErrors(found);
    if (Object.keys(found).length > 0) return;
    save.mutate(body);
  }

  return (
    <Panel
      title="Endpoint"
      description="Where Parley posts this account's events, and one header for your receiver's authentication."
    >
      <form onSubmit={submit} noValidate className="space-y-4">
        <TextField
          label="URL"
          name="url"
          type="url"
          inputMode="url"
          autoComplete="off"
          placeholder="https://app.example.com/parley"
          value={url}
          onChange={(e) => setUrl(e.target.value)}
          error={errors.url}
          hint={
            allowPrivate
              ? "http or https. Private and loopback addresses are allowed on this server (WEBHOOK_ALLOW_PRIVATE)."
              : "http or https, a public address: private, loopback and link-local addresses are refused."
          }
        />
        <TextField
          label="Failover URL"
          name="failoverUrl"
          type="url"
          inputMode="url"
          autoComplete="off"
          placeholder="https://backup.example.com/parley"
          value={failoverUrl}
          onChange={(e) => setFailoverUrl(e.target.value)}
          error={errors.failoverUrl}
          hint="Optional. When an attempt at the URL fails, the event goes here at once, signed the same way with the same header."
        />
        <div className="grid gap-4 sm:grid-cols-2">
          <TextField
            label="Header name"
            name="headerName"
            autoComplete="off"
            placeholder="Authorization"
            value={headerName}
            onChange={(e) => setHeaderName(e.target.value)}
            error={errors.headerName}
            hint="Optional. Leave empty to send no header."
          />
          <TextField
            label="Header value"
            name="headerValue"
            type="password"
            autoComplete="new-password"
            placeholder={keepsValue ? `${settings.headerValueHint} (set)` : "Bearer …"}
            value={headerValue}
            onChange={(e) => setHeaderValue(e.target.value)}
            error={errors.headerValue}
            hint={
              keepsValue ? (
                <>
                  <span className="font-mono">{settings.headerValueHint}</span> (set). Type a new value to replace it;
                  leave empty to keep it.
                </>
              ) : (
                "Sent with every event. Never shown again after saving."
              )
            }
          />
        </div>
        {errors[""] && <Notice tone="error">{errors[""]}</Notice>}
        {saved && <Notice tone="success">{saved}</Notice>}
        <div className="flex flex-wrap items-center justify-between gap-3">
          <Button type="submit" disabled={save.isPending}>
            {save.isPending ? "Saving…" : "Save"}
          </Button>
          {settings.url && (
            <Button variant="secondary" className="text-red-700" onClick={() => setConfirmRemove(true)}>
              Remove webhook
            </Button>
          )}
        </div>
      </form>
      <ConfirmDialog
        open={confirmRemove}
        title="Remove the webhook?"
        confirmLabel="Remove webhook"
        busy={remove.isPending}
        onConfirm={() => remove.mutate()}
        onCancel={() => setConfirmRemove(false)}
      >
        <p>
          No events are written for this account from now on, and events still waiting fail. The signing secret is kept
          for when you set a URL again.
        </p>
      </ConfirmDialog>
    </Panel>
  );
}
