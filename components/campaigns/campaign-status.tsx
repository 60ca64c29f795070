import { Badge, type BadgeTone } from "@/components/ui/badge";
import type { CampaignStatus } from "@/lib/campaigns/campaign-schema";

const TONES: Record<CampaignStatus, BadgeTone> = {
  scheduled: "gray",
  running: "blue",
  paused: "amber",
  finished: "green",
  cancelled: "gray",
};

export function CampaignStatusBadge({ status }: { status: CampaignStatus }) {
  return <Badge tone={TONES[status]}>{status}</Badge>;
}

/** The share of the campaign's phones with an outcome, as a bar. */
export function CampaignBar({ done, total, label }: { done: number; total: number; label: string }) {
  const percent = total === 0 ? 100 : Math.round((done / total) * 100);
  return (
    <div
      role="progressbar"
      aria-label={label}
      aria-valuemin={0}
      aria-valuemax={total}
      aria-valuenow={done}
      aria-valuetext={`${done} of ${total} (${percent}%)`}
      className="h-2.5 w-full overflow-hidden rounded-full bg-slate-200"
    >
      {/* The width is set through the DOM, not a style attribute: server-rendered, the policy (style-src 'self') would
          refuse the attribute. */}
      <div
        className="h-full rounded-full bg-indigo-600 transition-all"
        ref={(bar) => {
          if (bar) bar.style.width = `${percent}%`;
        }}
      />
    </div>
  );
}
