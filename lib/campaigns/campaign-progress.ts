import { ApiError } from "../api/api-error";
import { db } from "../db/client";
import { withPlus } from "../messaging/phone-number";
import { isoWithOffset } from "../messaging/time-format";
import type { CampaignAudience, CampaignCounts, CampaignStatus, CampaignView } from "./campaign-schema";

// What a campaign did, counted from its messages (lib/campaigns/manage-campaigns.ts makes and changes campaigns).

function notFound(): ApiError {
  return new ApiError("NotFound", { detail: "no such campaign in this account" });
}

export async function campaignRow(accountId: string, campaignId: string) {
  const row = await db().campaign.findFirst({ where: { id: campaignId, accountId } });
  if (!row) throw notFound();
  return row;
}

async function countsOf(campaign: { id: string; accountId: string; createdAt: Date }): Promise<CampaignCounts> {
  const groups = await db().message.groupBy({
    by: ["status", "rejectReason"],
    where: { campaignId: campaign.id },
    _count: { _all: true },
  });
  const counts: CampaignCounts = {
    scheduled: 0,
    held: 0,
    queued: 0,
    sent: 0,
    delivered: 0,
    failed: 0,
    optedOut: 0,
    refused: 0,
    cancelled: 0,
    replied: 0,
  };
  for (const g of groups) {
    const n = g._count._all;
    if (g.status === "scheduled") counts.scheduled += n;
    else if (g.status === "held") counts.held += n;
    else if (g.status === "queued") counts.queued += n;
    else if (g.status === "sending" || g.status === "sent") counts.sent += n;
    else if (g.status === "delivered") counts.delivered += n;
    else if (g.status === "cancelled") counts.cancelled += n;
    else if (g.status === "rejected") {
      if (g.rejectReason === "OptedOut") counts.optedOut += n;
      else counts.refused += n;
    } else counts.failed += n;
  }
  // Phones that wrote back since: among the campaign's destinations.
  const phones = await db().message.findMany({
    where: { campaignId: campaign.id, status: { not: "rejected" } },
    select: { toNumber: true },
  });
  if (phones.length > 0) {
    const replied = await db().message.findMany({
      where: {
        accountId: campaign.accountId,
        direction: "inbound",
        createdAt: { gte: campaign.createdAt },
        fromNumber: { in: phones.map((p) => p.toNumber) },
      },
      distinct: ["fromNumber"],
      select: { fromNumber: true },
    });
    counts.replied = replied.length;
  }
  return counts;
}

type CampaignRow = Awaited<ReturnType<typeof campaignRow>>;

async function view(row: CampaignRow): Promise<CampaignView> {
  const counts = await countsOf(row);
  const waiting = counts.scheduled + counts.held + counts.queued + counts.sent;
  let status: CampaignStatus = row.status as CampaignStatus;
  if (row.status === "running") {
    if (waiting === 0) status = "finished";
    else if (counts.queued + counts.sent === 0 && row.sendAt && row.sendAt.getTime() > Date.now()) status = "scheduled";
  }
  if (row.status === "paused" && waiting === 0) status = "finished";
  return {
    id: row.id,
    name: row.name,
    status,
    body: row.body,
    fromNumbers: (JSON.parse(row.fromNumbers) as string[]).map(withPlus),
    audience: JSON.parse(row.audience) as CampaignAudience,
    sendAt: row.sendAt ? isoWithOffset(row.sendAt) : null,
    createdAt: row.createdAt.toISOString(),
    createdBy: row.createdBy,
    recipients: row.recipients,
    counts,
    done: counts.delivered + counts.failed + counts.optedOut + counts.refused + counts.cancelled,
  };
}

export async function getCampaign(input: { accountId: string; campaignId: string }): Promise<CampaignView> {
  return view(await campaignRow(input.accountId, input.campaignId));
}

/** The account's campaigns, newest first (at most 100), with their counts. */
export async function listCampaigns(accountId: string): Promise<CampaignView[]> {
  const rows = await db().campaign.findMany({ where: { accountId }, orderBy: { createdAt: "desc" }, take: 100 });
  return Promise.all(rows.map(view));
}
