"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useAccountApi } from "@/components/portal/portal-context";
import { apiCall, type Query } from "@/components/ui/api-client";
import { usePagedQuery } from "@/components/ui/paged-list";
import { keys } from "@/components/ui/query-keys";
import type { AuditPage, CreatedUser, UserListing, UserPage } from "@/components/users/user-types";
import type { UserChangeInput, UserRole } from "@/lib/accounts/user-schema";
import type { SessionListing } from "@/lib/auth/list-sessions";
import type { MutationCallbacks } from "./mutation-callbacks";

// The account's users and its audit trail: the lists, adding and changing a user, resetting their two-factor and
// ending their sessions. Every change is audited, so both lists are read again after it, whatever the answer.

export function useUsers(page: { start: number; count: number }, initial: UserPage) {
  const api = useAccountApi();
  return usePagedQuery({
    queryKey: keys.users.list(page),
    path: api("/users"),
    query: page,
    initial,
    isFirstPage: page.start === 0,
  });
}

export function useAuditTrail(query: Query, initial: AuditPage, isFirstPage: boolean) {
  const api = useAccountApi();
  return usePagedQuery({ queryKey: keys.audit.list(query), path: api("/audit"), query, initial, isFirstPage });
}

function useRefreshUsers() {
  const cache = useQueryClient();
  return () =>
    Promise.all([
      cache.invalidateQueries({ queryKey: keys.users.all }),
      cache.invalidateQueries({ queryKey: keys.audit.all }),
    ]);
}

/** A mutation of users: the screen's reactions first, then both lists read again. */
function useUserMutation<TData, TVariables>(
  mutationFn: (variables: TVariables) => Promise<TData>,
  options: MutationCallbacks<TData, TVariables>,
) {
  const refresh = useRefreshUsers();
  return useMutation({
    ...options,
    mutationFn,
    onSettled: async (...args) => {
      await options.onSettled?.(...args);
      await refresh();
    },
  });
}

export type NewUser = { email: string; name: string; role: UserRole };

export function useAddUser(options: MutationCallbacks<CreatedUser, NewUser>) {
  const api = useAccountApi();
  return useUserMutation((body: NewUser) => apiCall<CreatedUser>(api("/users"), { method: "POST", body }), options);
}

export interface UserChange {
  user: UserListing;
  changes: UserChangeInput;
}

export function useChangeUser(options: MutationCallbacks<{ user: UserListing }, UserChange>) {
  const api = useAccountApi();
  return useUserMutation(
    ({ user, changes }: UserChange) =>
      apiCall<{ user: UserListing }>(api(`/users/${encodeURIComponent(user.id)}`), { method: "PATCH", body: changes }),
    options,
  );
}

/** A lost phone: the user signs in with their password alone and sets two-factor up again. */
export function useResetTwoFactor(options: MutationCallbacks<unknown, UserListing>) {
  const api = useAccountApi();
  return useUserMutation(
    (user: UserListing) => apiCall(api(`/users/${encodeURIComponent(user.id)}/two-factor`), { method: "DELETE" }),
    options,
  );
}

/** Ends one of a user's sessions, or all of them. */
export function useEndUserSession(user: UserListing, options: MutationCallbacks<unknown, SessionListing | "all"> = {}) {
  const base = useAccountApi()(`/users/${encodeURIComponent(user.id)}/sessions`);
  return useUserMutation(
    (session: SessionListing | "all") =>
      apiCall(session === "all" ? base : `${base}/${encodeURIComponent(session.id)}`, { method: "DELETE" }),
    options,
  );
}
