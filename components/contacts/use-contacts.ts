"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useAccountApi } from "@/components/portal/portal-context";
import { apiCall, type Query } from "@/components/ui/api-client";
import { usePagedQuery } from "@/components/ui/paged-list";
import { keys } from "@/components/ui/query-keys";
import type { ImportResult } from "@/lib/contacts/contact-csv";
import type { ContactInput } from "@/lib/contacts/contact-schemas";
import type { ContactView, listContacts } from "@/lib/contacts/manage-contacts";

export type ContactPage = Awaited<ReturnType<typeof listContacts>>;
export type { ContactView, ImportResult };

// The contacts' query keys, beside the portal's others: a saved contact changes the conversations' names too.
export const contactKeys = {
  all: ["contacts"] as const,
  list: (query: Query) => ["contacts", "list", query] as const,
  one: (number: string) => ["contacts", "one", number] as const,
};

export function useContactList(query: Query, initial: ContactPage, isFirstPage: boolean) {
  const api = useAccountApi();
  return usePagedQuery({ queryKey: contactKeys.list(query), path: api("/contacts"), query, initial, isFirstPage });
}

export function useContact(number: string) {
  const api = useAccountApi();
  return useQuery({
    queryKey: contactKeys.one(number),
    queryFn: ({ signal }) =>
      apiCall<{ contact: ContactView }>(api(`/contacts/${encodeURIComponent(number)}`), { signal }),
    select: (data) => data.contact,
  });
}

/** Everything that shows a contact's name is read again after a change. */
function useContactsChanged() {
  const cache = useQueryClient();
  return () => {
    void cache.invalidateQueries({ queryKey: contactKeys.all });
    void cache.invalidateQueries({ queryKey: keys.conversations.all });
    void cache.invalidateQueries({ queryKey: keys.messages.all });
  };
}

export function useSaveContact(number: string) {
  const api = useAccountApi();
  const changed = useContactsChanged();
  return useMutation({
    mutationFn: (body: ContactInput) =>
      apiCall<{ contact: ContactView }>(api(`/contacts/${encodeURIComponent(number)}`), { method: "PUT", body }),
    onSuccess: changed,
  });
}

export function useImportContacts() {
  const api = useAccountApi();
  const changed = useContactsChanged();
  return useMutation({
    mutationFn: (csv: string) => apiCall<ImportResult>(api("/contacts/import"), { method: "POST", body: { csv } }),
    onSuccess: changed,
  });
}

export function useExportContactsHref(): string {
  return useAccountApi()("/contacts/export");
}

/** The saved names of some numbers (digits, with or without "+"), for a page that shows numbers (Messages). */
export function useContactNames(numbers: string[]): (number: string) => string | null {
  const api = useAccountApi();
  const wanted = [...new Set(numbers.map((n) => n.replace("+", "")))].sort().slice(0, 100);
  const query = useQuery({
    queryKey: contactKeys.list({ numbers: wanted.join(",") }),
    queryFn: ({ signal }) => apiCall<ContactPage>(api("/contacts"), { query: { numbers: wanted.join(",") }, signal }),
    enabled: wanted.length > 0,
    staleTime: 30_000,
  });
  const names = new Map((query.data?.contacts ?? []).filter((c) => c.name).map((c) => [c.number, c.name]));
  return (number) => names.get(number.replace("+", "")) ?? null;
}
