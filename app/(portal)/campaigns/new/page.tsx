import Link from "next/link";
import { requireAdmin } from "@/app/(portal)/require-user";
import { CampaignForm } from "@/components/campaigns/campaign-form";
import { PageHeader } from "@/components/ui/page-header";
import { accountNumbers } from "@/lib/numbers/manage-numbers";

export const metadata = { title: "New campaign · Parley" };
export const dynamic = "force-dynamic";

export default async function Page() {
  const user = await requireAdmin();
  const numbers = await accountNumbers(user.accountId);
  return (
    <>
      <PageHeader
        title="New campaign"
        actions={
          <Link href="/campaigns" className="text-sm text-indigo-700 hover:underline">
            ← Campaigns
          </Link>
        }
      />
      <CampaignForm accountNumbers={numbers} />
    </>
  );
}
