"use client";

import { Button } from "./button";

/** Previous / next over a list answered with `start`, `count` and a total, and where the page stands. */
export function Pager({
  start,
  count,
  total,
  onChange,
  label = "results",
}: {
  start: number;
  count: number;
  total: number | null;
  onChange: (start: number) => void;
  label?: string;
}) {
  const shownTo = total === null ? start + count : Math.min(start + count, total);
  const hasNext = total === null ? true : start + count < total;
  return (
    <nav aria-label="Pagination" className="flex items-center justify-between gap-3 pt-3 text-sm text-slate-600">
      <span>
        {total === 0 ? `No ${label}` : `${(start + 1).toLocaleString()}–${shownTo.toLocaleString()}`}
        {total !== null && total > 0 && ` of ${total.toLocaleString()} ${label}`}
      </span>
      <span className="flex gap-2">
        <Button
          variant="secondary"
          size="sm"
          disabled={start === 0}
          onClick={() => onChange(Math.max(0, start - count))}
        >
          Previous
        </Button>
        <Button variant="secondary" size="sm" disabled={!hasNext} onClick={() => onChange(start + count)}>
          Next
        </Button>
      </span>
    </nav>
  );
}
