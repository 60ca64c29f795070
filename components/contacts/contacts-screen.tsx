"use client";

import { useState } from "react";
import { failureText } from "@/components/ui/api-client";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { EmptyState } from "@/components/ui/empty-state";
import { formatNumber } from "@/components/ui/format-time";
import { Notice } from "@/components/ui/notice";
import { Panel } from "@/components/ui/page-header";
import { Pager } from "@/components/ui/pager";
import { CONTACTS_PAGE } from "@/lib/contacts/contact-schemas";
import { ContactForm } from "./contact-form";
import { CsvImport } from "./csv-import";
import { useContactList, type ContactPage } from "./use-contacts";

/** The Contacts page: search, the list (saved contacts and every conversation's number), edit, import and export. */
export function ContactsScreen({ initial }: { initial: ContactPage }) {
  const [q, setQ] = useState("");
  const [start, setStart] = useState(0);
  const [editing, setEditing] = useState<string | null>(null);
  const query = { q: q.trim(), start, count: CONTACTS_PAGE };
  const list = useContactList(query, initial, q.trim() === "" && start === 0);
  const page = list.data;

  return (
    <div className="space-y-6">
      <Panel title="Import and export">
        <CsvImport />
      </Panel>
      <Panel title="Contacts" description="Every phone that has a conversation is a contact; give it a name here.">
        <label className="mb-4 flex max-w-md flex-col text-sm font-medium text-slate-700">
          Search
          <input
            type="search"
            aria-label="Search contacts"
            placeholder="Name, number, e-mail, company or tag"
            value={q}
            onChange={(e) => {
              setQ(e.target.value);
              setStart(0);
            }}
            className="mt-1 rounded-md border border-slate-300 px-3 py-2 text-sm font-normal"
          />
        </label>
        {list.isError && <Notice tone="error">{failureText(list.error)}</Notice>}
        {page && page.contacts.length === 0 ? (
          <EmptyState title={q.trim() ? "No contact matches" : "No contacts yet"}>
            {q.trim()
              ? "Try part of a name, a number's digits, an e-mail, a company or a tag."
              : "Import a CSV file, or name a phone from its conversation."}
          </EmptyState>
        ) : page ? (
          <>
            <ul aria-label="Contacts" className="divide-y divide-slate-100">
              {page.contacts.map((c) => (
                <li key={c.number} className="py-3">
                  <div className="flex flex-wrap items-center gap-x-3 gap-y-1 text-sm">
                    <span className={c.name ? "font-medium text-slate-900" : "text-slate-500 italic"}>
                      {c.name || "Unnamed"}
                    </span>
                    <span className="font-mono text-xs text-slate-600">{formatNumber(c.number)}</span>
                    {c.email && <span className="text-xs text-slate-600">{c.email}</span>}
                    {c.company && <span className="text-xs text-slate-600">{c.company}</span>}
                    {c.tags.map((t) => (
                      <Badge key={t} tone="indigo">
                        {t}
                      </Badge>
                    ))}
                    {c.optedOut && <Badge tone="red">Opted out</Badge>}
                    <Button
                      variant="ghost"
                      size="sm"
                      className="ml-auto"
                      aria-expanded={editing === c.number}
                      aria-label={`Edit ${c.name || formatNumber(c.number)}`}
                      onClick={() => setEditing(editing === c.number ? null : c.number)}
                    >
                      {editing === c.number ? "Close" : "Edit"}
                    </Button>
                  </div>
                  {editing === c.number && (
                    <div className="mt-3 rounded-md border border-slate-200 bg-slate-50 p-3">
                      <ContactForm contact={c} onSaved={() => setEditing(null)} />
                    </div>
                  )}
                </li>
              ))}
            </ul>
            <Pager start={start} count={CONTACTS_PAGE} total={page.total} onChange={setStart} label="contacts" />
          </>
        ) : null}
      </Panel>
    </div>
  );
}
