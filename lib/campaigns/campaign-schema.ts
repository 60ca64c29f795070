import { z } from "zod";

// A campaign as the admin API, /v3/campaigns and the portal's form take it (no server imports: the browser checks
// the form with this very schema). The server checks what needs the database after it: the numbers are the
// account's, the tag has contacts, the time is in range.

export const CAMPAIGN_LIMITS = { maxRecipients: 10_000, maxFromNumbers: 20, maxBodyChars: 1600 } as const;

/** The variables a campaign's text may use: a canned reply's, the agent being whoever created the campaign. */
export const CAMPAIGN_VARIABLES = ["contact.name", "contact.first_name", "account.number"] as const;

export const campaignAudienceSchema = z.union([
  z.strictObject({ tag: z.string().trim().min(1, "name a tag").max(50, "at most 50 characters") }),
  z.strictObject({
    numbers: z
      .array(z.string().max(64, "at most 64 characters"))
      .min(1, "give at least one number")
      .max(CAMPAIGN_LIMITS.maxRecipients, `at most ${CAMPAIGN_LIMITS.maxRecipients.toLocaleString("en-US")} numbers`),
  }),
]);
export type CampaignAudience = z.infer<typeof campaignAudienceSchema>;

export const campaignInputSchema = z.strictObject({
  name: z.string().trim().min(1, "the campaign needs a name").max(100, "at most 100 characters"),
  fromNumbers: z
    .array(z.string().max(32))
    .min(1, "pick at least one of the account's numbers")
    .max(CAMPAIGN_LIMITS.maxFromNumbers, `at most ${CAMPAIGN_LIMITS.maxFromNumbers} numbers`),
  body: z
    .string()
    .trim()
    .min(1, "write the text")
    .max(CAMPAIGN_LIMITS.maxBodyChars, `at most ${CAMPAIGN_LIMITS.maxBodyChars.toLocaleString("en-US")} characters`),
  audience: campaignAudienceSchema,
  /** ISO 8601 with offset, 60 s to 35 days ahead (a scheduled send's rule); absent: now. */
  sendAt: z.string().min(1, "pick a time").max(40).nullish(),
});
export type CampaignInput = z.infer<typeof campaignInputSchema>;

export const CAMPAIGN_ACTIONS = ["pause", "resume", "cancel"] as const;
export type CampaignAction = (typeof CAMPAIGN_ACTIONS)[number];

/** What a campaign's messages did, counted from them. */
export interface CampaignCounts {
  /** Waiting for the campaign's time, or held while it is paused. */
  scheduled: number;
  /** Held for review by the SMS pumping defence (lib/guard): they leave only once released on the dashboard. */
  held: number;
  queued: number;
  /** Handed to the carrier, no outcome yet. */
  sent: number;
  delivered: number;
  /** Undelivered, failed or expired. */
  failed: number;
  /** Left out because the phone opted out of the account. */
  optedOut: number;
  /** Left out for another reason: an invalid or repeated number. */
  refused: number;
  cancelled: number;
  /** Phones that wrote back since the campaign started. */
  replied: number;
}

export type CampaignStatus = "scheduled" | "running" | "paused" | "finished" | "cancelled";

export interface CampaignView {
  id: string;
  name: string;
  status: CampaignStatus;
  body: string;
  fromNumbers: string[];
  audience: CampaignAudience;
  sendAt: string | null;
  createdAt: string;
  createdBy: string;
  /** Phones it was meant for (one message each). */
  recipients: number;
  counts: CampaignCounts;
  /** Messages with an outcome (delivered, failed, left out, cancelled), of `recipients`. */
  done: number;
}
