"use client";

import { useEffect, useState } from "react";
import { useNumbers, useReleaseNumber, type NumbersPage } from "@/components/data/use-numbers";
import { failureText } from "@/components/ui/api-client";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { EmptyState } from "@/components/ui/empty-state";
import { formatNumber } from "@/components/ui/format-time";
import { Notice } from "@/components/ui/notice";
import { Panel } from "@/components/ui/page-header";
import { Pager } from "@/components/ui/pager";
import type { PortalNumber } from "@/lib/numbers/number-schema";
import { AddNumberForm } from "./add-number-form";
import { NumberRow } from "./number-row";

// How often the list (and so each number's queue) is read again while the page is open.
const REFRESH_MS = 10_000;

export function NumbersScreen({ initial, carriers }: { initial: NumbersPage; carriers: string[] }) {
  const [start, setStart] = useState(0);
  const [releasing, setReleasing] = useState<PortalNumber | null>(null);
  const [released, setReleased] = useState<string | null>(null);
  const count = initial.count;

  const list = useNumbers({ start, count }, initial, REFRESH_MS);

  const release = useReleaseNumber({
    onSuccess: (result) => {
      setReleasing(null);
      setReleased(
        `${formatNumber(result.number)} is released.` +
          (result.cancelledMessages > 0
            ? ` ${result.cancelledMessages.toLocaleString()} queued message${result.cancelledMessages === 1 ? " was" : "s were"} cancelled.`
            : ""),
      );
    },
  });

  const page = list.data;
  // The last page emptied by releases: show the one before it.
  const emptied = page !== undefined && page.numbers.length === 0 && page.total > 0 && start > 0;
  useEffect(() => {
    if (emptied && page) setStart(Math.max(0, Math.floor((page.total - 1) / count) * count));
  }, [emptied, page, count]);
  const current = releasing && page?.numbers.find((n) => n.number === releasing.number);
  const target = current ?? releasing;

  return (
    <div className="space-y-6">
      <Panel
        title="Add number"
        description="Provision a number to this account: it can send from it at once, and texts to it arrive here."
      >
        <AddNumberForm carriers={carriers} />
      </Panel>

      <Panel
        title="Provisioned numbers"
        description={page && page.total > 0 ? `${page.total.toLocaleString()} in this account` : undefined}
      >
        {released ? (
          <Notice tone="success" className="mb-4">
            {released}
          </Notice>
        ) : null}
        {list.error ? (
          <Notice tone="error" className="mb-4">
            The numbers could not be loaded: {failureText(list.error)}
          </Notice>
        ) : null}
        {page && page.total === 0 ? (
          <EmptyState title="No numbers yet">
            Add one above with its country code, such as +14155550100. Scripts can add numbers with{" "}
            <code className="font-mono">POST /v3/numbers</code>, and operators with{" "}
            <code className="font-mono">npm run parley -- number add</code>.
          </EmptyState>
        ) : page ? (
          <>
            <div className="-mx-5 -mt-5 overflow-hidden md:mx-0 md:mt-0 md:rounded-lg md:border md:border-slate-200">
              <table className="block w-full text-sm md:table">
                <thead className="hidden bg-slate-50 text-left text-xs uppercase tracking-wide text-slate-500 md:table-header-group">
                  <tr>
                    <th className="px-4 py-2 font-medium">Number</th>
                    <th className="px-4 py-2 font-medium">Label</th>
                    <th className="px-4 py-2 font-medium">Carrier</th>
                    <th className="px-4 py-2 font-medium">Rate</th>
                    <th className="px-4 py-2 font-medium">Queued now</th>
                    <th className="px-4 py-2 font-medium">Added</th>
                    <th className="px-4 py-2 font-medium">
                      <span className="sr-only">Actions</span>
                    </th>
                  </tr>
                </thead>
                <tbody className="block md:table-row-group">
                  {page.numbers.map((row) => (
                    <NumberRow
                      key={row.number}
                      row={row}
                      carriers={carriers}
                      onRelease={(number) => {
                        release.reset();
                        setReleased(null);
                        setReleasing(number);
                      }}
                    />
                  ))}
                </tbody>
              </table>
            </div>
            <Pager start={start} count={count} total={page.total} onChange={setStart} label="numbers" />
          </>
        ) : null}
      </Panel>

      <ConfirmDialog
        open={target !== null}
        title={target ? `Release ${formatNumber(target.number)}?` : "Release"}
        confirmLabel={
          release.isPending
            ? "Releasing…"
            : target && target.queued > 0
              ? `Release and cancel ${target.queued.toLocaleString()} message${target.queued === 1 ? "" : "s"}`
              : "Release"
        }
        busy={release.isPending}
        onCancel={() => setReleasing(null)}
        onConfirm={() => target && release.mutate(target)}
      >
        {target ? (
          <div className="space-y-2">
            <p>
              Sending from {formatNumber(target.number)}
              {target.label ? ` (${target.label})` : ""} will be refused (FromNotOwned) and texts sent to it will no
              longer arrive. Its messages and conversations stay. It can be provisioned again later, unless another
              account takes it first.
            </p>
            {target.queued > 0 ? (
              <p className="font-medium text-amber-800">
                {target.queued.toLocaleString()} message{target.queued === 1 ? " is" : "s are"} queued to be sent from
                it. Releasing it cancels {target.queued === 1 ? "it" : "them"}: marked rejected (FromNotOwned), never
                sent.
              </p>
            ) : null}
            {release.error ? <Notice tone="error">{failureText(release.error)}</Notice> : null}
          </div>
        ) : null}
      </ConfirmDialog>
    </div>
  );
}
