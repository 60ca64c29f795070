"use client";

import { useId, useState } from "react";
import { useTestCarrier, useUpdateCarrier } from "@/components/data/use-carriers";
import { failureText } from "@/components/ui/api-client";
import { Button } from "@/components/ui/button";
import { CopyButton } from "@/components/ui/copy-button";
import { formatAgo } from "@/components/ui/format-time";
import { Notice } from "@/components/ui/notice";
import { CONNECTION_KINDS, HTTP_TYPES } from "@/lib/carriers/connections/connection-kinds";
import type { ConnectionView } from "@/lib/carriers/connections/manage-connections";
import { ConnectionStateBadge, stateWords } from "./connection-state";
import { ProviderNumbers } from "./provider-numbers";

// One connection of the list: its kind, health and routed numbers, the two addresses to give the provider, and
// what can be done with it (Test, Edit, Disable/Enable, Remove, and the provider's numbers for an HTTP kind).

function UrlBox({ label, url, copyLabel }: { label: string; url: string; copyLabel: string }) {
  const id = useId();
  return (
    <div>
      <label htmlFor={id} className="block text-xs font-medium text-slate-600">
        {label}
      </label>
      <div className="mt-1 flex gap-2">
        <input
          id={id}
          readOnly
          value={url}
          spellCheck={false}
          onFocus={(event) => event.target.select()}
          className="block w-full min-w-0 rounded-md border border-slate-300 bg-slate-50 px-2.5 py-1.5 font-mono text-xs text-slate-800"
        />
        <span className="shrink-0 whitespace-nowrap">
          <CopyButton text={url} label={copyLabel} />
        </span>
      </div>
    </div>
  );
}

export function ConnectionCard({
  connection,
  now,
  onEdit,
  onRemove,
}: {
  connection: ConnectionView;
  now: number;
  onEdit: () => void;
  onRemove: () => void;
}) {
  const headingId = useId();
  const [showNumbers, setShowNumbers] = useState(false);
  const test = useTestCarrier(connection.id);
  const toggle = useUpdateCarrier(connection.id, {});
  const kind = CONNECTION_KINDS[connection.type];
  const isHttp = HTTP_TYPES.includes(connection.type);
  const detail = stateWords(connection.state, connection.stateDetail);
  const testTone = test.data ? (test.data.ok ? "text-emerald-700" : "text-red-700") : "text-red-700";

  return (
    <article aria-labelledby={headingId} className="space-y-4 px-5 py-4">
      <div className="flex flex-wrap items-start justify-between gap-3">
        <div className="min-w-0">
          <h3 id={headingId} className="flex flex-wrap items-center gap-2 text-base font-semibold text-slate-900">
            <span className="break-all">{connection.name}</span>
            <ConnectionStateBadge state={connection.state} detail={connection.stateDetail} />
          </h3>
          <p className="mt-0.5 text-sm text-slate-600">
            {kind.label} · {connection.numbers.toLocaleString()} number{connection.numbers === 1 ? "" : "s"} routed
            {connection.stateSince ? (
              <span title={connection.stateSince} suppressHydrationWarning>
                {" "}
                · {connection.state} since {formatAgo(connection.stateSince, now)}
              </span>
            ) : null}
          </p>
          {detail ? <p className="mt-1 text-xs break-words text-slate-500">{detail}</p> : null}
        </div>
        <div className="flex flex-wrap gap-2">
          <Button variant="secondary" size="sm" onClick={() => test.mutate()} disabled={test.isPending}>
            Test
          </Button>
          <Button variant="secondary" size="sm" onClick={onEdit}>
            Edit
          </Button>
          <Button
            variant="secondary"
            size="sm"
            disabled={toggle.isPending}
            onClick={() => toggle.mutate({ enabled: !connection.enabled })}
          >
            {connection.enabled ? "Disable" : "Enable"}
          </Button>
          {isHttp ? (
            <Button
              variant="secondary"
              size="sm"
              aria-expanded={showNumbers}
              onClick={() => setShowNumbers((open) => !open)}
            >
              Numbers at provider
            </Button>
          ) : null}
          <Button
            variant="ghost"
            size="sm"
            className="text-red-700! hover:bg-red-50! hover:text-red-800!"
            onClick={onRemove}
          >
            Remove
          </Button>
        </div>
      </div>

      <p role="status" className={`text-sm ${testTone}`}>
        {test.isPending ? <span className="text-slate-500">Testing…</span> : null}
        {!test.isPending && test.data ? test.data.words : null}
        {!test.isPending && test.error ? failureText(test.error) : null}
      </p>
      {toggle.error ? <Notice tone="error">{failureText(toggle.error)}</Notice> : null}

      {isHttp ? (
        <>
          <div className="grid gap-3 xl:grid-cols-2">
            <UrlBox label="Inbound URL" url={connection.inboundUrl} copyLabel="Copy inbound URL" />
            <UrlBox label="Status URL" url={connection.statusUrl} copyLabel="Copy status URL" />
          </div>
          <p className="text-xs text-slate-500">
            Give the provider these addresses (importing or buying a number here sets the inbound one for it): inbound
            messages to the Inbound URL, delivery statuses to the Status URL. Callbacks are checked by the
            provider&apos;s signature.
          </p>
        </>
      ) : connection.type === "smpp" ? (
        <p className="text-xs text-slate-500">
          The worker binds to the SMSC when one of its numbers first sends; receipts and inbound texts arrive over the
          binds, so there is no address to give.
        </p>
      ) : null}

      {showNumbers ? <ProviderNumbers connection={connection} /> : null}
    </article>
  );
}
