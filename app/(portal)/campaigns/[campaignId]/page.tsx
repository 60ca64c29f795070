import Link from "next/link";
import { notFound } from "next/navigation";
import { requireAdmin } from "@/app/(portal)/require-user";
import { CampaignProgress } from "@/components/campaigns/campaign-progress";
import { PageHeader } from "@/components/ui/page-header";
import { ApiError } from "@/lib/api/api-error";
import { getCampaign } from "@/lib/campaigns/manage-campaigns";

export const metadata = { title: "Campaign · Parley" };
export const dynamic = "force-dynamic";

export default async function Page({ params }: { params: Promise<{ campaignId: string }> }) {
  const user = await requireAdmin();
  const { campaignId } = await params;
  const campaign = await getCampaign({ accountId: user.accountId, campaignId }).catch((error: unknown) => {
    if (error instanceof ApiError) notFound();
    throw error;
  });
  return (
    <>
      <PageHeader
        title={campaign.name}
        actions={
          <Link href="/campaigns" className="text-sm text-indigo-700 hover:underline">
            ← Campaigns
          </Link>
        }
      />
      <CampaignProgress initial={campaign} />
    </>
  );
}
