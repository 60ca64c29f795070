"use client";

import { useEffect, useRef, useState, type FormEvent } from "react";
import { failureText, ApiFailure } from "@/components/ui/api-client";
import { Button } from "@/components/ui/button";
import { Notice } from "@/components/ui/notice";
import { contactInput, splitTags } from "@/lib/contacts/contact-schemas";
import { useSaveContact, type ContactView } from "./use-contacts";

const input =
  "mt-0.5 block w-full rounded-md border border-slate-300 px-2 py-1 text-sm font-normal focus:outline-2 focus:outline-indigo-500";

/**
 * A contact's fields (Name, Email, Company, Tags, Note) and "Save contact", for the Contacts page and the thread's
 * Contact panel. Validated with the server's own schema before it is sent.
 */
export function ContactForm({
  contact,
  compact = false,
  onSaved,
}: {
  contact: ContactView;
  compact?: boolean;
  onSaved?: (contact: ContactView) => void;
}) {
  const [name, setName] = useState(contact.name);
  const [email, setEmail] = useState(contact.email);
  const [company, setCompany] = useState(contact.company);
  const [tags, setTags] = useState(contact.tags.join(", "));
  const [note, setNote] = useState(contact.note);
  const [problem, setProblem] = useState<{ field?: string; text: string } | null>(null);
  // Someone else saved the contact (it came in live): the form follows, unless the viewer has changed a field.
  const shown = useRef(contact);
  useEffect(() => {
    const before = shown.current;
    shown.current = contact;
    const untouched =
      name === before.name &&
      email === before.email &&
      company === before.company &&
      tags === before.tags.join(", ") &&
      note === before.note;
    if (!untouched || before.updatedAt === contact.updatedAt) return;
    setName(contact.name);
    setEmail(contact.email);
    setCompany(contact.company);
    setTags(contact.tags.join(", "));
    setNote(contact.note);
    // Only a new version of the contact matters here; the fields are read as they were when it came.
  }, [contact]);
  const [saved, setSaved] = useState(false);
  const save = useSaveContact(contact.number);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setSaved(false);
    const parsed = contactInput.safeParse({ name, email, company, tags: splitTags(tags), note });
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      setProblem({ field: String(issue.path[0] ?? ""), text: `${String(issue.path[0] ?? "")}: ${issue.message}` });
      return;
    }
    setProblem(null);
    try {
      const answer = await save.mutateAsync(parsed.data);
      setSaved(true);
      onSaved?.(answer.contact);
    } catch (error) {
      setProblem({ field: error instanceof ApiFailure ? error.field : undefined, text: failureText(error) });
    }
  };

  const label = "block text-xs font-medium text-slate-700";
  const invalid = (field: string) => (problem?.field === field ? true : undefined);
  return (
    <form onSubmit={(e) => void submit(e)} className="space-y-2" noValidate>
      <div className={`grid gap-2 ${compact ? "grid-cols-2 lg:grid-cols-4 xl:grid-cols-1" : "sm:grid-cols-2"}`}>
        <label className={label}>
          Name
          <input className={input} value={name} onChange={(e) => setName(e.target.value)} maxLength={200} />
        </label>
        <label className={label}>
          Email
          <input
            className={input}
            type="email"
            value={email}
            aria-invalid={invalid("email")}
            onChange={(e) => setEmail(e.target.value)}
          />
        </label>
        <label className={label}>
          Company
          <input className={input} value={company} onChange={(e) => setCompany(e.target.value)} maxLength={200} />
        </label>
        <label className={label}>
          Tags
          <input
            className={input}
            value={tags}
            aria-invalid={invalid("tags")}
            placeholder="vip, billing"
            onChange={(e) => setTags(e.target.value)}
          />
        </label>
      </div>
      <label className={label}>
        Note
        <textarea
          className={input}
          rows={compact ? 1 : 3}
          value={note}
          maxLength={2000}
          onChange={(e) => setNote(e.target.value)}
        />
      </label>
      {problem && <Notice tone="error">{problem.text}</Notice>}
      <div className="flex items-center gap-3">
        <Button type="submit" size="sm" disabled={save.isPending}>
          Save contact
        </Button>
        {saved && (
          <span role="status" className="text-xs text-emerald-700">
            Saved
          </span>
        )}
      </div>
    </form>
  );
}
