import type { ReactNode } from "react";
import { requireUser } from "@/components/portal/require-user";
import { PortalViewerProvider } from "@/components/portal/portal-context";
import { Sidebar } from "@/components/portal/sidebar";
import { QueryProvider } from "@/components/ui/query-provider";
import { accountName } from "@/lib/accounts/account-settings";
import { env } from "@/lib/env";

export const dynamic = "force-dynamic";

export default async function PortalLayout({ children }: { children: ReactNode }) {
  const user = await requireUser();
  const viewer = {
    userId: user.id,
    email: user.email,
    name: user.name,
    role: user.role,
    accountId: user.accountId,
    accountName: await accountName(user.accountId),
  };
  return (
    <PortalViewerProvider viewer={viewer}>
      <QueryProvider>
        <div className="min-h-screen md:pl-56">
          <Sidebar showSimulator={env().CARRIER === "simulator"} />
          <main className="mx-auto max-w-6xl px-4 py-6 sm:px-6 md:py-8">{children}</main>
        </div>
      </QueryProvider>
    </PortalViewerProvider>
  );
}
