"use client";

import { useId, useState, type FormEvent } from "react";
import { Button } from "@/components/ui/button";
import { SelectField, TextField } from "@/components/ui/field";
import { LISTING_STATUSES, type FilterParam } from "@/lib/messaging/listing-values";
import { filtersOf, hasFilters, type Filters, type ListQuery } from "./list-query";

const MORE: FilterParam[] = ["direction", "messageType", "timestampBegin", "timestampEnd", "messageId", "referenceId"];
const TIME_HINT =
  "A date (from its midnight UTC), an ISO time with an offset (2026-11-22T09:00-05:00), or 'YYYY-MM-DD HH:mm:ss' in UTC";

/**
 * The listing's filters, one field per parameter of GET /v3/messages. Text fields apply with Enter or the button;
 * choices apply at once. The API's answer to a bad value stands beside its field.
 */
export function MessageFilterForm({
  query,
  numbers,
  error,
  onApply,
}: {
  query: ListQuery;
  numbers: string[];
  error: { field: string; message: string } | null;
  onApply: (filters: Partial<Filters>) => void;
}) {
  // Remounted (key) by the caller when the URL's filters change, so the draft starts from them.
  const [draft, setDraft] = useState<Filters>(() => filtersOf(query));
  const numbersList = useId();
  const errorOf = (field: FilterParam) => (error?.field === field ? error.message : null);
  const moreOpen = MORE.some((name) => draft[name] !== "" || error?.field === name);

  const clean = (filters: Filters): Partial<Filters> =>
    Object.fromEntries(Object.entries(filters).filter(([, value]) => value.trim() !== ""));
  const apply = (filters: Filters) => onApply(clean(filters));
  const text = (name: FilterParam) => ({
    name,
    value: draft[name],
    error: errorOf(name),
    onChange: (event: { target: { value: string } }) => setDraft({ ...draft, [name]: event.target.value }),
  });
  const choice = (name: FilterParam) => ({
    name,
    value: draft[name],
    error: errorOf(name),
    onChange: (event: { target: { value: string } }) => {
      const next = { ...draft, [name]: event.target.value };
      setDraft(next);
      apply(next);
    },
  });
  // A value the URL carries that the choices do not offer is shown as it is (and the API says what is wrong).
  const extra = (name: FilterParam, allowed: readonly string[]) =>
    draft[name] !== "" && !allowed.includes(draft[name]) ? <option value={draft[name]}>{draft[name]}</option> : null;

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    apply(draft);
  }

  return (
    <form
      onSubmit={submit}
      role="search"
      aria-label="Filter messages"
      className="rounded-lg border border-slate-200 bg-white p-4 shadow-xs"
    >
      <div className="grid grid-cols-1 gap-3 sm:grid-cols-2 lg:grid-cols-4">
        <SelectField label="Status" {...choice("status")}>
          <option value="">Any status</option>
          {LISTING_STATUSES.map((status) => (
            <option key={status} value={status}>
              {status}
            </option>
          ))}
          {extra("status", LISTING_STATUSES)}
        </SelectField>
        <TextField label="From" placeholder="Any number" list={numbersList} inputMode="tel" {...text("from")} />
        <datalist id={numbersList}>
          {numbers.map((number) => (
            <option key={number} value={number} />
          ))}
        </datalist>
        <TextField label="To" placeholder="Any number" inputMode="tel" {...text("to")} />
        <TextField label="Body contains" placeholder="Any text" {...text("body")} />
      </div>
      <details open={moreOpen} className="group mt-3">
        <summary className="cursor-pointer text-sm font-medium text-indigo-700 select-none">More filters</summary>
        <div className="mt-3 grid grid-cols-1 gap-3 sm:grid-cols-2 lg:grid-cols-4">
          <SelectField label="Direction" {...choice("direction")}>
            <option value="">Both directions</option>
            <option value="outbound">outbound</option>
            <option value="inbound">inbound</option>
            {extra("direction", ["outbound", "inbound"])}
          </SelectField>
          <SelectField label="Type" {...choice("messageType")}>
            <option value="">SMS and MMS</option>
            <option value="sms">sms</option>
            <option value="mms">mms</option>
            {extra("messageType", ["sms", "mms"])}
          </SelectField>
          <TextField label="Since" placeholder="2026-11-22" hint={TIME_HINT} {...text("timestampBegin")} />
          <TextField label="Before" placeholder="2026-11-23" hint={TIME_HINT} {...text("timestampEnd")} />
          <TextField label="Message id" placeholder="UUID" {...text("messageId")} />
          <TextField label="Reference id" placeholder="Your referenceId" {...text("referenceId")} />
        </div>
      </details>
      <div className="mt-4 flex flex-wrap gap-2">
        <Button type="submit">Apply filters</Button>
        {hasFilters(query) && (
          <Button
            variant="ghost"
            onClick={() => {
              setDraft(filtersOf({}));
              onApply({});
            }}
          >
            Clear filters
          </Button>
        )}
      </div>
    </form>
  );
}
