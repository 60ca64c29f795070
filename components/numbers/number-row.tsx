"use client";

import { useState, type FormEvent, type ReactNode } from "react";
import { useUpdateNumber } from "@/components/data/use-numbers";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { TextField } from "@/components/ui/field";
import { serverFieldErrors, zodFieldErrors } from "@/components/ui/field-errors";
import { formatNumber, formatTime } from "@/components/ui/format-time";
import { Notice } from "@/components/ui/notice";
import { NUMBER_LIMITS, updateNumberInput, type PortalNumber } from "@/lib/numbers/number-schema";
import { CarrierSelect } from "./carrier-select";

// One number of the list: a table row on a wide window, a card on a narrow one (each cell then names itself).

function Cell({ label, children, className = "" }: { label: string; children: ReactNode; className?: string }) {
  return (
    <td className={`flex items-baseline justify-between gap-3 py-0.5 md:table-cell md:px-4 md:py-3 ${className}`}>
      <span className="text-xs font-medium text-slate-500 md:hidden">{label}</span>
      <span className="min-w-0 text-right md:text-left">{children}</span>
    </td>
  );
}

export function NumberRow({
  row,
  carriers,
  onRelease,
}: {
  row: PortalNumber;
  carriers: string[];
  onRelease: (row: PortalNumber) => void;
}) {
  const [editing, setEditing] = useState(false);
  if (editing) return <EditRow row={row} carriers={carriers} onDone={() => setEditing(false)} />;
  return (
    <tr className="block border-b border-slate-100 px-4 py-3 last:border-b-0 md:table-row md:p-0">
      <Cell label="Number">
        <span className="font-mono font-medium text-slate-900">{formatNumber(row.number)}</span>
      </Cell>
      <Cell label="Label">
        {row.label ? (
          <span className="break-words text-slate-800">{row.label}</span>
        ) : (
          <span className="text-slate-500">No label</span>
        )}
      </Cell>
      <Cell label="Carrier">
        {row.carrier ? (
          <span className="break-all text-slate-800">{row.carrier}</span>
        ) : (
          <span className="text-slate-500" title="The deployment's default connection">
            Default
          </span>
        )}
      </Cell>
      <Cell label="Rate">
        <span className="whitespace-nowrap tabular-nums">{row.ratePerSecond} msgs/s</span>
      </Cell>
      <Cell label="Queued now">
        {row.queued > 0 ? (
          <Badge tone="amber" title="Outbound messages waiting to leave from this number">
            {row.queued.toLocaleString()} queued
          </Badge>
        ) : (
          <span className="tabular-nums text-slate-500">0</span>
        )}
      </Cell>
      <Cell label="Added">
        <time dateTime={row.createdAt} title={row.createdAt} suppressHydrationWarning className="whitespace-nowrap">
          {formatTime(row.createdAt)}
        </time>
      </Cell>
      <td className="flex justify-end gap-2 pt-2 md:table-cell md:px-4 md:py-3 md:text-right">
        <span className="inline-flex gap-2">
          <Button
            variant="secondary"
            size="sm"
            onClick={() => setEditing(true)}
            aria-label={`Edit ${formatNumber(row.number)}`}
          >
            Edit
          </Button>
          <Button
            variant="ghost"
            size="sm"
            className="text-red-700! hover:bg-red-50! hover:text-red-800!"
            onClick={() => onRelease(row)}
            aria-label={`Release ${formatNumber(row.number)}`}
          >
            Release
          </Button>
        </span>
      </td>
    </tr>
  );
}

/** The row as a small form: label, rate and carrier, "Save" or "Cancel". */
function EditRow({ row, carriers, onDone }: { row: PortalNumber; carriers: string[]; onDone: () => void }) {
  const [label, setLabel] = useState(row.label);
  const [rate, setRate] = useState(String(row.ratePerSecond));
  const [carrier, setCarrier] = useState(row.carrier ?? "");
  const [errors, setErrors] = useState<Record<string, string>>({});
  const save = useUpdateNumber(row.number, {
    onSuccess: onDone,
    onError: (error) => {
      // A refusal naming no field is shown by the row's notice, not beside a field.
      const found = serverFieldErrors(error, { sentence: false });
      if (!found[""]) setErrors(found);
    },
  });

  function submit(event: FormEvent) {
    event.preventDefault();
    const parsed = updateNumberInput.safeParse({
      label,
      ratePerSecond: rate.trim() === "" ? undefined : Number(rate),
      // Sent only when changed; null: back to the deployment's default connection.
      carrier: carrier === (row.carrier ?? "") ? undefined : carrier === "" ? null : carrier,
    });
    if (!parsed.success) {
      setErrors(zodFieldErrors(parsed, { sentence: false }));
      return;
    }
    if (parsed.data.ratePerSecond === undefined) {
      setErrors({ ratePerSecond: "Enter a rate, such as 1." });
      return;
    }
    setErrors({});
    save.mutate(parsed.data);
  }

  const unplaced = save.isError && serverFieldErrors(save.error)[""];
  return (
    <tr className="block border-b border-slate-100 bg-indigo-50/40 last:border-b-0 md:table-row">
      <td colSpan={7} className="block px-4 py-4 md:table-cell">
        <form onSubmit={submit} noValidate aria-label={`Edit ${formatNumber(row.number)}`} className="space-y-3">
          <p className="font-mono font-medium text-slate-900">{formatNumber(row.number)}</p>
          <div className="grid gap-3 sm:grid-cols-[minmax(0,2fr)_minmax(0,1fr)_minmax(0,1fr)]">
            <TextField
              label="Label"
              value={label}
              onChange={(event) => setLabel(event.target.value)}
              error={errors.label}
              maxLength={NUMBER_LIMITS.maxLabelChars + 20}
              autoFocus
            />
            <TextField
              label="Rate (msgs/s)"
              inputMode="decimal"
              value={rate}
              onChange={(event) => setRate(event.target.value)}
              error={errors.ratePerSecond}
              hint={`Above 0, at most ${NUMBER_LIMITS.maxRatePerSecond}.`}
            />
            <CarrierSelect carriers={carriers} value={carrier} onChange={setCarrier} error={errors.carrier} />
          </div>
          {unplaced ? <Notice tone="error">{unplaced}</Notice> : null}
          <div className="flex gap-2">
            <Button type="submit" size="sm" disabled={save.isPending}>
              {save.isPending ? "Saving…" : "Save"}
            </Button>
            <Button variant="secondary" size="sm" onClick={onDone} disabled={save.isPending}>
              Cancel
            </Button>
          </div>
        </form>
      </td>
    </tr>
  );
}
