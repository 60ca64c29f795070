"use client";

import Link from "next/link";
import { LocalTime } from "@/components/ui/local-time";
import { Panel } from "@/components/ui/page-header";
import type { CampaignView } from "@/lib/campaigns/campaign-schema";
import { CampaignBar, CampaignStatusBadge } from "./campaign-status";
import { useCampaigns } from "./use-campaigns";

export function CampaignList({ initial }: { initial: CampaignView[] }) {
  const { data: campaigns } = useCampaigns(initial);
  if (campaigns.length === 0) {
    return (
      <Panel title="No campaigns yet">
        <p className="text-sm text-slate-600">
          Start one with New campaign: pick the numbers it is sent from, the contacts (by tag) or a list of numbers, and
          the text.
        </p>
      </Panel>
    );
  }
  return (
    <Panel title="All campaigns">
      <ul className="divide-y divide-slate-100" aria-label="Campaigns">
        {campaigns.map((c) => (
          <li key={c.id} className="flex flex-wrap items-center gap-x-4 gap-y-2 py-3">
            <Link href={`/campaigns/${c.id}`} className="min-w-48 font-medium text-indigo-700 hover:underline">
              {c.name}
            </Link>
            <CampaignStatusBadge status={c.status} />
            <div className="min-w-40 flex-1">
              <CampaignBar done={c.done} total={c.recipients} label={`Progress of ${c.name}`} />
            </div>
            <span className="text-sm text-slate-600">
              {c.done} of {c.recipients}
            </span>
            <span className="text-xs text-slate-500">
              <LocalTime iso={c.createdAt} />
            </span>
          </li>
        ))}
      </ul>
    </Panel>
  );
}
