import { redirect } from "next/navigation";
import { requireUser } from "@/app/(portal)/require-user";
import { DashboardView } from "@/components/dashboard/dashboard-view";
import { CopyButton } from "@/components/ui/copy-button";
import { PageHeader } from "@/components/ui/page-header";
import { readDashboard } from "@/lib/dashboard/read-dashboard";

export const metadata = { title: "Dashboard · Parley" };

export default async function DashboardPage() {
  const user = await requireUser();
  // Agents work in conversations; the dashboard's figures are the admins'.
  if (user.role !== "admin") redirect("/conversations");
  const dashboard = await readDashboard(user.accountId);
  return (
    <>
      <PageHeader
        title="Dashboard"
        description={
          <span className="flex flex-wrap items-center gap-x-2 gap-y-1">
            <span>
              Account id <code className="font-mono text-xs break-all">{user.accountId}</code>
            </span>
            <CopyButton text={user.accountId} label="Copy account id" />
          </span>
        }
      />
      <DashboardView initial={dashboard} />
    </>
  );
}
