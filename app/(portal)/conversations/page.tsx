import { requireUser } from "@/components/portal/require-user";
import { PageHeader } from "@/components/ui/page-header";

export const metadata = { title: "Conversations · Parley" };

export default async function Page() {
  await requireUser();
  return <PageHeader title="Conversations" />;
}
