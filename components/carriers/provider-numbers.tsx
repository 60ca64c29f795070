"use client";

import { useState, type FormEvent } from "react";
import {
  useBuyNumber,
  useImportNumbers,
  useProviderNumbers,
  useSearchNumbers,
  type ImportResult,
} from "@/components/data/use-carriers";
import { failureText } from "@/components/ui/api-client";
import { Badge, type BadgeTone } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { TextField } from "@/components/ui/field";
import { formatNumber } from "@/components/ui/format-time";
import { Notice } from "@/components/ui/notice";
import type { ConnectionView } from "@/lib/carriers/connections/manage-connections";

// "Numbers at provider" of an HTTP connection: the numbers its provider account holds (import them, routed to this
// connection, their inbound address set at the provider), and a search of the numbers it offers (buy one). A
// provider's failure is answered by the server with its own words: they are shown as they come.

const STATUS_TONE: Record<string, BadgeTone> = { available: "blue", imported: "green", elsewhere: "gray" };
const STATUS_TITLE: Record<string, string> = {
  available: "Not in Parley yet: import it to send and receive on it here",
  imported: "In this account, routed to this connection",
  elsewhere: "In Parley already, on another connection or account",
};

function importWords(result: ImportResult): string {
  const imported =
    result.imported.length === 0
      ? "No number imported."
      : `Imported ${result.imported.map(formatNumber).join(", ")}: routed to this connection.`;
  const skipped = result.skipped.map((s) => `${formatNumber(s.number)} skipped: ${s.why}.`);
  return [imported, ...skipped].join(" ");
}

function HeldNumbers({ connection }: { connection: ConnectionView }) {
  const held = useProviderNumbers(connection.id, true);
  const [chosen, setChosen] = useState<string[]>([]);
  const importing = useImportNumbers(connection.id, { onSuccess: () => setChosen([]) });
  const toggle = (number: string, on: boolean) =>
    setChosen((current) => (on ? [...current, number] : current.filter((n) => n !== number)));

  return (
    <div className="space-y-3">
      <h4 className="text-sm font-semibold text-slate-800">Held by the provider account</h4>
      {held.isPending ? <p className="text-sm text-slate-500">Asking the provider…</p> : null}
      {held.error ? <Notice tone="error">{failureText(held.error)}</Notice> : null}
      {held.data && held.data.length === 0 ? (
        <p className="text-sm text-slate-600">The provider account holds no number yet: search below to buy one.</p>
      ) : null}
      {held.data && held.data.length > 0 ? (
        <ul className="divide-y divide-slate-100 rounded-md border border-slate-200" aria-label="Numbers at provider">
          {held.data.map((n) => (
            <li key={n.number} className="flex flex-wrap items-center gap-3 px-3 py-2 text-sm">
              <label className="flex min-w-0 flex-1 items-center gap-2">
                <input
                  type="checkbox"
                  className="size-4"
                  disabled={n.status !== "available"}
                  checked={chosen.includes(n.number)}
                  onChange={(event) => toggle(n.number, event.target.checked)}
                />
                <span className="font-mono">{formatNumber(n.number)}</span>
                {n.label && n.label !== formatNumber(n.number) ? (
                  <span className="truncate text-slate-500">{n.label}</span>
                ) : null}
              </label>
              <Badge tone={STATUS_TONE[n.status]} title={STATUS_TITLE[n.status]}>
                {n.status}
              </Badge>
            </li>
          ))}
        </ul>
      ) : null}
      <div className="flex flex-wrap items-center gap-2">
        <Button
          size="sm"
          disabled={chosen.length === 0 || importing.isPending}
          onClick={() => importing.mutate(chosen)}
        >
          {importing.isPending ? "Importing…" : "Import selected"}
        </Button>
        <Button variant="secondary" size="sm" onClick={() => held.refetch()} disabled={held.isFetching}>
          Refresh
        </Button>
      </div>
      {importing.error ? <Notice tone="error">{failureText(importing.error)}</Notice> : null}
      {importing.data ? (
        <Notice tone={importing.data.imported.length > 0 ? "success" : "warning"}>{importWords(importing.data)}</Notice>
      ) : null}
    </div>
  );
}

function SearchNumbers({ connection }: { connection: ConnectionView }) {
  const [country, setCountry] = useState("US");
  const [areaCode, setAreaCode] = useState("");
  const search = useSearchNumbers(connection.id);
  const [bought, setBought] = useState<string[]>([]);
  const buy = useBuyNumber(connection.id, {
    onSuccess: (_data, number) => setBought((current) => [...current, number]),
  });

  function submit(event: FormEvent) {
    event.preventDefault();
    buy.reset();
    search.mutate({ country: country.trim().toUpperCase(), areaCode: areaCode.trim() });
  }

  return (
    <div className="space-y-3">
      <h4 className="text-sm font-semibold text-slate-800">Buy a new number</h4>
      <form
        onSubmit={submit}
        noValidate
        aria-label={`Search numbers at ${connection.name}`}
        className="grid gap-3 sm:grid-cols-[8rem_10rem_auto] sm:items-start"
      >
        <TextField
          label="Country"
          value={country}
          maxLength={2}
          autoComplete="off"
          onChange={(event) => setCountry(event.target.value)}
        />
        <TextField
          label="Area code"
          value={areaCode}
          inputMode="numeric"
          autoComplete="off"
          placeholder="212"
          onChange={(event) => setAreaCode(event.target.value)}
        />
        <Button type="submit" variant="secondary" disabled={search.isPending} className="sm:mt-6">
          {search.isPending ? "Searching…" : "Search"}
        </Button>
      </form>
      {search.error ? <Notice tone="error">{failureText(search.error)}</Notice> : null}
      {search.data && search.data.length === 0 ? (
        <p className="text-sm text-slate-600">The provider offers no number for that search.</p>
      ) : null}
      {search.data && search.data.length > 0 ? (
        <ul className="divide-y divide-slate-100 rounded-md border border-slate-200" aria-label="Numbers for sale">
          {search.data.map((n) => (
            <li key={n.number} className="flex flex-wrap items-center gap-3 px-3 py-2 text-sm">
              <span className="font-mono">{formatNumber(n.number)}</span>
              <span className="min-w-0 flex-1 truncate text-slate-500">{n.locality}</span>
              {bought.includes(n.number) ? (
                <Badge tone="green">bought</Badge>
              ) : (
                <Button size="sm" disabled={buy.isPending} onClick={() => buy.mutate(n.number)}>
                  Buy
                </Button>
              )}
            </li>
          ))}
        </ul>
      ) : null}
      {buy.error ? <Notice tone="error">{failureText(buy.error)}</Notice> : null}
      {bought.length > 0 ? (
        <Notice tone="success">
          Bought {bought.map(formatNumber).join(", ")}: in this account now, routed to this connection.
        </Notice>
      ) : null}
    </div>
  );
}

export function ProviderNumbers({ connection }: { connection: ConnectionView }) {
  return (
    <div className="grid gap-6 rounded-md bg-slate-50 p-4 lg:grid-cols-2">
      <HeldNumbers connection={connection} />
      <SearchNumbers connection={connection} />
    </div>
  );
}
