"use client";

import Link from "next/link";
import { useState } from "react";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { CampaignBar } from "@/components/campaigns/campaign-status";
import { useAccountApi } from "@/components/portal/portal-context";
import { apiCall, failureText } from "@/components/ui/api-client";
import { Button } from "@/components/ui/button";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { formatInZone } from "@/components/ui/format-time";
import { Notice } from "@/components/ui/notice";
import { Panel } from "@/components/ui/page-header";
import { keys } from "@/components/ui/query-keys";
import type { Dashboard } from "@/lib/dashboard/read-dashboard";
import type { HeldGroup } from "@/lib/guard/held-messages";
import { limitWarnings } from "@/lib/guard/limit-warnings";

/** Today's use of the daily limits (Settings → Guard rails), with a bar each. */
export function LimitsPanel({ dashboard }: { dashboard: Dashboard }) {
  const { usage } = dashboard.guard;
  const limits = (["messages", "segments"] as const).filter((limit) => usage[limit].max > 0);
  if (limits.length === 0) return null;
  const warnings = limitWarnings(usage);
  return (
    <Panel
      title="Daily limits"
      description={`${usage.day} in ${usage.timeZone}; counted when messages are accepted. Change them in Settings.`}
    >
      <div className="space-y-4">
        {warnings.map((w) => (
          <Notice key={w.limit} tone="warning">
            {w.text}
          </Notice>
        ))}
        <dl className="grid gap-4 sm:grid-cols-2">
          {limits.map((limit) => {
            const { used, max } = usage[limit];
            return (
              <div key={limit} className="space-y-1">
                <dt className="text-sm font-medium capitalize text-slate-800">{limit}</dt>
                <dd className="space-y-1">
                  <CampaignBar done={Math.min(used, max)} total={max} label={`Daily ${limit} used`} />
                  <span className="block text-xs tabular-nums text-slate-600">
                    {used.toLocaleString()} of {max.toLocaleString()}
                  </span>
                </dd>
              </div>
            );
          })}
        </dl>
      </div>
    </Panel>
  );
}

/** The messages the SMS pumping defence held, by range: each released (sent as usual) or cancelled. */
export function HeldPanel({ dashboard }: { dashboard: Dashboard }) {
  const { held } = dashboard.guard;
  if (held.length === 0) return null;
  return (
    <Panel
      title="Held for review"
      description="A sudden burst of messages to premium-rate numbers, or to a country none of your numbers is in, is the mark of SMS pumping fraud: these were accepted but wait for you. Release what you expected; cancel the rest."
    >
      <ul className="divide-y divide-slate-100">
        {held.map((group) => (
          <HeldRow key={group.prefix} group={group} zone={dashboard.account.timeZone} />
        ))}
      </ul>
    </Panel>
  );
}

function HeldRow({ group, zone }: { group: HeldGroup; zone: string }) {
  const api = useAccountApi();
  const cache = useQueryClient();
  const [asking, setAsking] = useState(false);
  const review = useMutation({
    mutationFn: (action: "release" | "cancel") =>
      apiCall(api("/held"), { method: "POST", body: { prefix: group.prefix, action } }),
    onSettled: () => {
      setAsking(false);
      return Promise.all([
        cache.invalidateQueries({ queryKey: keys.dashboard.all }),
        cache.invalidateQueries({ queryKey: keys.messages.all }),
      ]);
    },
  });
  const count = `${group.messages.toLocaleString()} message${group.messages === 1 ? "" : "s"}`;
  const name = `${group.prefix}… (${group.country})`;
  return (
    <li className="flex flex-wrap items-start justify-between gap-3 py-3" aria-label={`Held: ${name}`}>
      <div className="text-sm">
        <p className="font-medium text-slate-900">
          {count} to {name}
        </p>
        <p className="text-slate-600">
          {group.segments.toLocaleString()} segments; {group.sample.join(", ")}
          {group.messages > group.sample.length ? ", …" : ""}
        </p>
        <p className="text-xs text-slate-500">
          First {formatInZone(group.firstAt, zone)}, last {formatInZone(group.lastAt, zone)}.{" "}
          <Link className="text-indigo-700 underline" href="/messages?status=held">
            See them
          </Link>
        </p>
        {review.error && <Notice tone="error">Not done: {failureText(review.error)}</Notice>}
      </div>
      <div className="flex gap-2">
        <Button size="sm" onClick={() => review.mutate("release")} disabled={review.isPending}>
          Release
        </Button>
        <Button variant="secondary" size="sm" onClick={() => setAsking(true)} disabled={review.isPending}>
          Cancel
        </Button>
      </div>
      <ConfirmDialog
        open={asking}
        title={`Cancel ${count} to ${group.prefix}…?`}
        confirmLabel={review.isPending ? "Cancelling…" : "Cancel messages"}
        busy={review.isPending}
        onConfirm={() => review.mutate("cancel")}
        onCancel={() => setAsking(false)}
        cancelLabel="Keep them"
      >
        They are never sent: each ends cancelled, with a delivery-status webhook event. This cannot be undone.
      </ConfirmDialog>
    </li>
  );
}
