"use client";

import { useId } from "react";
import { failureText } from "@/components/ui/api-client";
import { Badge } from "@/components/ui/badge";
import { formatNumber } from "@/components/ui/format-time";
import { Notice } from "@/components/ui/notice";
import { ContactForm } from "./contact-form";
import { useContact } from "./use-contacts";

/** The thread's side panel: who the phone is (name, e-mail, company, tags, note), editable by any staff member. */
export function ContactPanel({ number, id, className = "" }: { number: string; id?: string; className?: string }) {
  const heading = useId();
  const query = useContact(number);
  const contact = query.data;
  return (
    <section id={id} aria-labelledby={heading} className={`bg-white px-4 py-3 ${className}`}>
      <div className="mb-2 flex flex-wrap items-center gap-2">
        <h3 id={heading} className="text-sm font-semibold text-slate-900">
          Contact
        </h3>
        <span className="font-mono text-xs text-slate-500">{formatNumber(number)}</span>
        {contact?.optedOut && <Badge tone="red">Opted out</Badge>}
      </div>
      {query.error && <Notice tone="error">{failureText(query.error)}</Notice>}
      {contact ? (
        <ContactForm key={contact.number} contact={contact} compact />
      ) : (
        !query.error && <p className="text-xs text-slate-500">Loading…</p>
      )}
    </section>
  );
}
