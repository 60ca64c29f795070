import type { ReactNode } from "react";
import { requireSignedIn } from "@/app/(portal)/require-user";
import { PortalViewerProvider } from "@/components/portal/portal-context";
import { PortalMain } from "@/components/portal/portal-main";
import { Sidebar } from "@/components/portal/sidebar";
import { QueryProvider } from "@/components/ui/query-provider";
import { getAccountSettings } from "@/lib/accounts/account-settings";
import { env } from "@/lib/env";
import { LimitBanner } from "@/components/portal/limit-banner";
import { dailyUsage } from "@/lib/guard/daily-limits";
import { limitWarnings } from "@/lib/guard/limit-warnings";
import { sendSettings } from "@/lib/guard/send-settings";

export const dynamic = "force-dynamic";

export default async function PortalLayout({ children }: { children: ReactNode }) {
  // Not requireUser: the Profile page, where a user enrols in two-factor, is inside this layout too.
  const user = await requireSignedIn();
  const account = await getAccountSettings(user.accountId);
  const warnings = limitWarnings(await dailyUsage(user.accountId, await sendSettings(user.accountId)));
  const viewer = {
    userId: user.id,
    email: user.email,
    name: user.name,
    role: user.role,
    accountId: user.accountId,
    accountName: account.name,
    timeZone: account.timeZone,
  };
  return (
    <PortalViewerProvider viewer={viewer}>
      <QueryProvider>
        <div className="min-h-screen md:flex">
          {/* The column keeps the sidebar's colour down the whole page; the sidebar itself stays in view. */}
          <div className="bg-gray-900 md:w-56 md:shrink-0">
            <Sidebar showSimulator={env().CARRIER === "simulator"} />
          </div>
          <div className="min-w-0 flex-1">
            <LimitBanner warnings={warnings} admin={user.role === "admin"} />
            <PortalMain>{children}</PortalMain>
          </div>
        </div>
      </QueryProvider>
    </PortalViewerProvider>
  );
}
