"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useAccountApi } from "@/components/portal/portal-context";
import { apiCall } from "@/components/ui/api-client";
import { keys } from "@/components/ui/query-keys";
import type { PasswordChangeInput } from "@/lib/accounts/user-schema";
import type { SessionListing } from "@/lib/auth/list-sessions";
import type { TwoFactorStatus } from "@/lib/auth/two-factor-enrolment";
import type { MutationCallbacks } from "./mutation-callbacks";

// The signed-in user's own profile: their sessions, their password and their two-factor sign-in.

export type Sessions = { sessions: SessionListing[] };

export function useOwnSessions(initial: Sessions) {
  const api = useAccountApi();
  return useQuery({
    queryKey: keys.profile.sessions,
    queryFn: ({ signal }) => apiCall<Sessions>(api("/profile/sessions"), { signal }),
    initialData: initial,
  });
}

/** A mutation of the profile: the screen's reactions first, then the profile read again. */
function useProfileMutation<TData, TVariables>(
  mutationFn: (variables: TVariables) => Promise<TData>,
  options: MutationCallbacks<TData, TVariables>,
) {
  const cache = useQueryClient();
  return useMutation({
    ...options,
    mutationFn,
    onSettled: async (...args) => {
      await options.onSettled?.(...args);
      await cache.invalidateQueries({ queryKey: keys.profile.all });
    },
  });
}

export function useEndOwnSession(options: MutationCallbacks<unknown, SessionListing> = {}) {
  const api = useAccountApi();
  return useProfileMutation(
    (session: SessionListing) =>
      apiCall(api(`/profile/sessions/${encodeURIComponent(session.id)}`), { method: "DELETE" }),
    options,
  );
}

/** Changes the password; the user's other sessions end. */
export function useChangePassword(options: MutationCallbacks<{ endedSessions: number }, PasswordChangeInput>) {
  const api = useAccountApi();
  return useProfileMutation(
    (body: PasswordChangeInput) =>
      apiCall<{ endedSessions: number }>(api("/profile/password"), { method: "POST", body }),
    options,
  );
}

/** What setting two-factor up shows: the key to type, the otpauth URI and its QR code. */
export interface TwoFactorSetup {
  key: string;
  uri: string;
  qrCode: string;
}

/** The steps of two-factor sign-in, each one call; the panel runs them one at a time and shows what they answer. */
export function useTwoFactor() {
  const api = useAccountApi();
  const cache = useQueryClient();
  return {
    status: async () => (await apiCall<{ twoFactor: TwoFactorStatus }>(api("/profile/two-factor"))).twoFactor,
    setup: async () =>
      (await apiCall<{ setup: TwoFactorSetup }>(api("/profile/two-factor/setup"), { method: "POST", body: {} })).setup,
    /** Turns it on: answers the recovery codes, and how many of the user's other sessions ended with it. */
    enable: async (code: string) => {
      const answer = await apiCall<{ recoveryCodes: string[]; endedSessions: number }>(
        api("/profile/two-factor/enable"),
        { method: "POST", body: { code } },
      );
      await cache.invalidateQueries({ queryKey: keys.profile.sessions });
      return answer;
    },
    disable: (code: string) => apiCall(api("/profile/two-factor/disable"), { method: "POST", body: { code } }),
    newRecoveryCodes: async (code: string) =>
      (
        await apiCall<{ recoveryCodes: string[] }>(api("/profile/two-factor/recovery-codes"), {
          method: "POST",
          body: { code },
        })
      ).recoveryCodes,
  };
}
