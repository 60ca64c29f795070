"use client";

import { useQuery } from "@tanstack/react-query";
import { useAccountApi } from "@/components/portal/portal-context";
import { apiCall } from "@/components/ui/api-client";
import { keys } from "@/components/ui/query-keys";
import type { Dashboard } from "@/lib/dashboard/read-dashboard";

/** The admin's overview, read again every `refetchInterval` ms while the page is open. */
export function useDashboard(initial: Dashboard, refetchInterval: number) {
  const api = useAccountApi();
  return useQuery({
    queryKey: keys.dashboard.all,
    queryFn: ({ signal }) => apiCall<Dashboard>(api("/dashboard"), { signal }),
    initialData: initial,
    refetchInterval,
  });
}
