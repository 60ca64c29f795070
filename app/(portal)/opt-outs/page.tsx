import { requireAdmin } from "@/components/portal/require-user";
import { PageHeader } from "@/components/ui/page-header";

export const metadata = { title: "Opt-outs · Parley" };

export default async function Page() {
  await requireAdmin();
  return <PageHeader title="Opt-outs" />;
}
