import Link from "next/link";
import { requireAdmin } from "@/app/(portal)/require-user";
import { CampaignList } from "@/components/campaigns/campaign-list";
import { PageHeader } from "@/components/ui/page-header";
import { listCampaigns } from "@/lib/campaigns/manage-campaigns";

export const metadata = { title: "Campaigns · Parley" };
export const dynamic = "force-dynamic";

// /campaigns (admins): one text to a list of phones, sent as bulk inside the bulk window.
export default async function Page() {
  const user = await requireAdmin();
  const campaigns = await listCampaigns(user.accountId);
  return (
    <>
      <PageHeader
        title="Campaigns"
        description="One text to many phones: contacts with a tag, or a list of numbers. Sent as bulk, inside the account's bulk window in each phone's time zone; opted-out phones are left out."
        actions={
          <Link
            href="/campaigns/new"
            className="rounded-md bg-indigo-600 px-3.5 py-2 text-sm font-medium text-white hover:bg-indigo-700"
          >
            New campaign
          </Link>
        }
      />
      <CampaignList initial={campaigns} />
    </>
  );
}
