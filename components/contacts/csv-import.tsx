"use client";

import { useRef, type ChangeEvent } from "react";
import { failureText } from "@/components/ui/api-client";
import { Button } from "@/components/ui/button";
import { Notice } from "@/components/ui/notice";
import { useExportContactsHref, useImportContacts } from "./use-contacts";

/** "Import CSV" (a file of name,phone,email,tags) with what it did, and "Export CSV". */
export function CsvImport() {
  const file = useRef<HTMLInputElement>(null);
  const importing = useImportContacts();
  const exportHref = useExportContactsHref();
  const result = importing.data;

  const read = async (e: ChangeEvent<HTMLInputElement>) => {
    const chosen = e.target.files?.[0];
    e.target.value = "";
    if (!chosen) return;
    importing.mutate(await chosen.text());
  };

  return (
    <div className="space-y-3">
      <div className="flex flex-wrap items-center gap-2">
        <Button onClick={() => file.current?.click()} disabled={importing.isPending}>
          Import CSV
        </Button>
        <input
          ref={file}
          type="file"
          accept=".csv,text/csv"
          aria-label="CSV file to import"
          className="sr-only"
          tabIndex={-1}
          onChange={(e) => void read(e)}
        />
        <a
          href={exportHref}
          download="contacts.csv"
          className="inline-flex items-center rounded-md border border-slate-300 bg-white px-3.5 py-2 text-sm font-medium text-slate-800 hover:bg-slate-50"
        >
          Export CSV
        </a>
        <span className="text-xs text-slate-500">
          Columns <code>name,phone,email,tags</code>; tags separated by <code>;</code>.
        </span>
      </div>
      {importing.isPending && <p className="text-sm text-slate-500">Importing…</p>}
      {importing.isError && <Notice tone="error">{failureText(importing.error)}</Notice>}
      {result && (
        <Notice tone={result.problems.length ? "warning" : "success"}>
          <p>
            Imported {result.created + result.updated} ({result.created} new, {result.updated} updated),{" "}
            {result.unchanged} unchanged, {result.problems.length} bad {result.problems.length === 1 ? "row" : "rows"}.
          </p>
          {result.problems.length > 0 && (
            <ul aria-label="Bad rows" className="mt-1 list-disc pl-5">
              {result.problems.map((p) => (
                <li key={p.line}>
                  Line {p.line}: {p.message}
                </li>
              ))}
            </ul>
          )}
        </Notice>
      )}
    </div>
  );
}
