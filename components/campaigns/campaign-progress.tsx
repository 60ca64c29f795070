"use client";

import { useState } from "react";
import { Button } from "@/components/ui/button";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { LocalTime } from "@/components/ui/local-time";
import { Notice } from "@/components/ui/notice";
import { Panel } from "@/components/ui/page-header";
import { failureText } from "@/components/ui/api-client";
import type { CampaignCounts, CampaignView } from "@/lib/campaigns/campaign-schema";
import { CampaignBar, CampaignStatusBadge } from "./campaign-status";
import { useCampaign, useCampaignAction } from "./use-campaigns";

const ROWS: [keyof CampaignCounts, string][] = [
  ["scheduled", "Waiting for its time"],
  ["held", "Held for review"],
  ["queued", "Queued"],
  ["sent", "Sent"],
  ["delivered", "Delivered"],
  ["failed", "Failed"],
  ["optedOut", "Opted out (left out)"],
  ["refused", "Invalid or repeated (left out)"],
  ["cancelled", "Cancelled"],
  ["replied", "Replied"],
];

/** A campaign's live progress: the bar, what its messages did, and Pause / Resume / Cancel. */
export function CampaignProgress({ initial }: { initial: CampaignView }) {
  const { data: c } = useCampaign(initial);
  const act = useCampaignAction(c.id);
  const [confirmCancel, setConfirmCancel] = useState(false);
  const open = c.status !== "finished" && c.status !== "cancelled";
  return (
    <div className="space-y-6">
      <Panel title="Progress">
        <div className="mb-3 flex flex-wrap items-center gap-3">
          <CampaignStatusBadge status={c.status} />
          <span className="text-sm text-slate-700" role="status" aria-live="polite">
            {c.done} of {c.recipients} done
          </span>
          {c.sendAt && (
            <span className="text-sm text-slate-600">
              · starts <LocalTime iso={c.sendAt} />
            </span>
          )}
        </div>
        <CampaignBar done={c.done} total={c.recipients} label="Campaign progress" />
        <dl className="mt-4 grid grid-cols-2 gap-x-6 gap-y-2 text-sm sm:grid-cols-3" aria-label="Counts">
          {ROWS.map(([key, label]) => (
            <div key={key} className="flex justify-between gap-3 border-b border-slate-100 py-1">
              <dt className="text-slate-600">{label}</dt>
              <dd className="font-medium text-slate-900" data-count={key}>
                {c.counts[key]}
              </dd>
            </div>
          ))}
        </dl>
        {open && (
          <div className="mt-4 flex flex-wrap gap-2">
            {c.status === "paused" ? (
              <Button onClick={() => act.mutate("resume")} disabled={act.isPending}>
                Resume
              </Button>
            ) : (
              <Button variant="secondary" onClick={() => act.mutate("pause")} disabled={act.isPending}>
                Pause
              </Button>
            )}
            <Button variant="danger" onClick={() => setConfirmCancel(true)} disabled={act.isPending}>
              Cancel campaign
            </Button>
          </div>
        )}
        {act.error && <Notice tone="error">{failureText(act.error)}</Notice>}
      </Panel>
      <Panel title="Text">
        <p className="whitespace-pre-wrap text-sm text-slate-800">{c.body}</p>
        <p className="mt-2 text-xs text-slate-500">
          From {c.fromNumbers.join(", ")} ·{" "}
          {"tag" in c.audience ? `contacts tagged “${c.audience.tag}”` : `${c.audience.numbers.length} numbers`} ·
          created by {c.createdBy || "the API"}
        </p>
      </Panel>
      <ConfirmDialog
        open={confirmCancel}
        title="Cancel this campaign?"
        confirmLabel="Cancel campaign"
        cancelLabel="Keep it"
        busy={act.isPending}
        onConfirm={() => act.mutate("cancel", { onSettled: () => setConfirmCancel(false) })}
        onCancel={() => setConfirmCancel(false)}
      >
        Its messages not sent yet are cancelled; those already handed to the carrier go on. This cannot be undone.
      </ConfirmDialog>
    </div>
  );
}
