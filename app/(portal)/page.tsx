import { redirect } from "next/navigation";
import { requireUser } from "@/components/portal/require-user";
import { PageHeader } from "@/components/ui/page-header";

export const metadata = { title: "Dashboard · Parley" };

export default async function DashboardPage() {
  const user = await requireUser();
  // Agents work in conversations; the dashboard's figures are the admins'.
  if (user.role !== "admin") redirect("/conversations");
  return <PageHeader title="Dashboard" />;
}
