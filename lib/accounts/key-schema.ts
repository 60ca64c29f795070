import { z } from "zod";

// A new API key, as the portal's form and POST /api/admin/accounts/{accountId}/keys both check it (no server
// imports here: the browser runs this very schema).

// A date alone means midnight UTC at the start of that day, as `parley key create --expires` reads it; a time needs
// its zone (Z or an offset), so the expiry never depends on where it was typed.
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})(T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2}))?$/;

/** The instant an expiry text names, or null when it is not an ISO date (or not a real day, such as 2027-02-30). */
export function parseExpiry(text: string): Date | null {
  const match = ISO_DATE.exec(text.trim());
  if (!match) return null;
  const [year, month, day] = match.slice(1, 4).map(Number) as [number, number, number];
  const calendar = new Date(Date.UTC(year, month - 1, day));
  const realDay =
    calendar.getUTCFullYear() === year && calendar.getUTCMonth() === month - 1 && calendar.getUTCDate() === day;
  const date = new Date(match[4] ? text.trim() : `${text.trim()}T00:00:00Z`);
  return realDay && !Number.isNaN(date.getTime()) ? date : null;
}

export const newKeyInput = z
  .object({
    name: z
      .string({ error: "is required" })
      .trim()
      .min(1, "give the key a name, such as the system that will use it")
      .max(100, "at most 100 characters"),
    expiresAt: z
      .string({ error: "must be a date such as 2027-01-31" })
      .nullish()
      .transform((text, ctx) => {
        if (!text || text.trim() === "") return undefined;
        const date = parseExpiry(text);
        if (!date) {
          ctx.addIssue({ code: "custom", message: "must be a date such as 2027-01-31" });
          return z.NEVER;
        }
        if (date.getTime() <= Date.now()) {
          ctx.addIssue({ code: "custom", message: "must be in the future (a key expires at 00:00 UTC that day)" });
          return z.NEVER;
        }
        return date;
      }),
  })
  .strict();
export type NewKeyInput = z.infer<typeof newKeyInput>;
