import { z } from "zod";

// The account's settings as the /settings form and PUT /api/admin/accounts/{accountId} both check them (no server
// imports: the browser runs this very schema). Every field is optional on the API; the form sends them all.

/**
 * The IANA name Intl knows the zone by (canonical spelling: europe/paris → Europe/Paris), or null when it knows
 * none. Only Area/Location names and UTC: Intl also takes abbreviations such as EST and maps them to a city
 * nobody meant (America/Panama).
 */
export function canonicalTimeZone(zone: string): string | null {
  if (zone.toUpperCase() === "UTC") return "UTC";
  if (!/^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)+$/.test(zone)) return null;
  try {
    return new Intl.DateTimeFormat("en-US", { timeZone: zone }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

const hhmm = z
  .string({ error: "must be a time as HH:MM, such as 08:00" })
  .trim()
  .regex(/^([01]\d|2[0-3]):[0-5]\d$/, "must be a time as HH:MM, such as 08:00");

function dailyLimit(noun: string) {
  return z
    .number({ error: `must be a whole number of ${noun}` })
    .int(`must be a whole number of ${noun}`)
    .min(0, "must be 0 (no limit) or more")
    .max(100_000_000, "at most 100,000,000");
}

export const accountSettingsInput = z
  .object({
    name: z
      .string({ error: "is required" })
      .trim()
      .min(1, "the account needs a name")
      .max(100, "at most 100 characters"),
    timeZone: z
      .string({ error: "is required" })
      .trim()
      .transform((zone, ctx) => {
        const canonical = canonicalTimeZone(zone);
        if (!canonical) {
          ctx.addIssue({ code: "custom", message: "must be an IANA time zone such as America/New_York or UTC" });
          return z.NEVER;
        }
        return canonical;
      }),
    rateLimitPerSecond: z
      .number({ error: "must be a number of segments a second" })
      .gt(0, "must be more than 0 segments a second")
      .max(10_000, "at most 10,000 segments a second"),
    bulkWindowStart: hhmm,
    bulkWindowEnd: hhmm,
    bulkShare: z
      .number({ error: "must be a number between 0 and 1" })
      .gt(0, "must be more than 0 (bulk would never leave)")
      .max(1, "must be at most 1 (all of the account limit)"),
    // Every portal user must sign in with a code from an authenticator app; one without it can only set it up.
    requireTwoFactor: z.boolean({ error: "must be true or false" }),
    // The team inbox: agents see every conversation ("all") or only theirs and the unassigned ones ("assigned");
    // new inbound conversations go round-robin to agents with room under agentOpenLimit (0: no limit).
    conversationVisibility: z.enum(["all", "assigned"], { error: 'must be "all" or "assigned"' }),
    autoAssign: z.boolean({ error: "must be true or false" }),
    // Sends replace look-alike characters with GSM-7 ones unless the send's smartEncoding says otherwise.
    smartEncoding: z.boolean({ error: "must be true or false" }),
    // Guard rails: the destination countries sends may go to (ISO 3166 alpha-2 codes; [] the countries of the
    // account's numbers; ["*"] any), daily limits on accepted messages and segments and the burst threshold of the
    // pumping defence (0: none).
    allowedCountries: z
      .array(
        z
          .string({ error: "must be country codes such as US or GB" })
          .trim()
          .toUpperCase()
          .regex(/^([A-Z]{2}|\*)$/, "must be two-letter country codes such as US or GB, or * for any country"),
        { error: 'must be a list of country codes such as ["US", "CA"]' },
      )
      .max(250, "at most 250 countries")
      .refine((list) => !list.includes("*") || list.length === 1, "* (any country) stands alone"),
    dailyMessageLimit: dailyLimit("messages"),
    dailySegmentLimit: dailyLimit("segments"),
    burstHoldThreshold: z
      .number({ error: "must be a whole number of messages" })
      .int("must be a whole number of messages")
      .min(0, "must be 0 (never hold) or more")
      .max(1_000_000, "at most 1,000,000"),
    agentOpenLimit: z
      .number({ error: "must be a whole number of open conversations" })
      .int("must be a whole number of open conversations")
      .min(0, "must be 0 (no limit) or more")
      .max(10_000, "at most 10,000"),
  })
  .partial()
  .strict();
export type AccountSettingsInput = z.infer<typeof accountSettingsInput>;

export const ACCOUNT_SETTING_FIELDS = [
  "name",
  "timeZone",
  "rateLimitPerSecond",
  "bulkWindowStart",
  "bulkWindowEnd",
  "bulkShare",
  "requireTwoFactor",
  "conversationVisibility",
  "autoAssign",
  "agentOpenLimit",
  "smartEncoding",
  "allowedCountries",
  "dailyMessageLimit",
  "dailySegmentLimit",
  "burstHoldThreshold",
] as const;
