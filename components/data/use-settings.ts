"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useAccountApi } from "@/components/portal/portal-context";
import { apiCall } from "@/components/ui/api-client";
import { keys } from "@/components/ui/query-keys";
import type { AccountSettings } from "@/lib/accounts/account-settings";
import type { AccountSettingsInput } from "@/lib/accounts/settings-schema";
import type { MutationCallbacks } from "./mutation-callbacks";

// The account's settings (the account route itself). A change is audited: both are read again after it.

export function useSaveSettings(options: MutationCallbacks<{ account: AccountSettings }, AccountSettingsInput>) {
  const api = useAccountApi();
  const cache = useQueryClient();
  return useMutation({
    ...options,
    mutationFn: (body: AccountSettingsInput) => apiCall<{ account: AccountSettings }>(api(""), { method: "PUT", body }),
    onSettled: async (...args) => {
      await options.onSettled?.(...args);
      await Promise.all([
        cache.invalidateQueries({ queryKey: keys.settings.all }),
        cache.invalidateQueries({ queryKey: keys.audit.all }),
      ]);
    },
  });
}
