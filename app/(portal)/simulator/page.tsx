import { requireAdmin } from "@/components/portal/require-user";
import { PageHeader } from "@/components/ui/page-header";

export const metadata = { title: "Phone simulator · Parley" };

export default async function Page() {
  await requireAdmin();
  return <PageHeader title="Phone simulator" />;
}
