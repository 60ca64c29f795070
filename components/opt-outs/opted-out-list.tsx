"use client";

import { useState } from "react";
import { useOptedOut, type OptedOutPage } from "@/components/data/use-opt-outs";
import { failureText } from "@/components/ui/api-client";
import { EmptyState } from "@/components/ui/empty-state";
import { formatNumber } from "@/components/ui/format-time";
import { LocalTime } from "@/components/ui/local-time";
import { Notice } from "@/components/ui/notice";
import { Panel } from "@/components/ui/page-header";
import { Pager } from "@/components/ui/pager";
import { OPTED_OUT_PAGE } from "./trail-query";

/** The numbers sends are refused to now, most recent first. */
export function OptedOutList({ initial }: { initial: OptedOutPage }) {
  const [start, setStart] = useState(0);
  const query = { status: "out", start, count: OPTED_OUT_PAGE };
  const list = useOptedOut(query, initial, start === 0);
  const page = list.data;
  return (
    <Panel
      title="Opted-out numbers"
      description="Messages to these numbers are refused (OptedOut), whatever the send's optLogic says."
    >
      {list.isError && <Notice tone="error">{failureText(list.error)}</Notice>}
      {page && page.numbers.length === 0 ? (
        <EmptyState title="No number is opted out">
          A number lands here when its phone texts STOP (or another opt-out keyword), or when you opt it out.
        </EmptyState>
      ) : page ? (
        <>
          <ul className="divide-y divide-slate-100" aria-label="Opted-out numbers">
            {page.numbers.map((n) => (
              <li key={n.number} className="flex flex-wrap items-center justify-between gap-2 py-2 text-sm">
                <span className="font-mono">{formatNumber(n.number)}</span>
                <span className="text-xs text-slate-500">
                  since <LocalTime iso={n.changedAt} />
                </span>
              </li>
            ))}
          </ul>
          <Pager start={start} count={OPTED_OUT_PAGE} total={page.total} onChange={setStart} label="numbers" />
        </>
      ) : null}
    </Panel>
  );
}
