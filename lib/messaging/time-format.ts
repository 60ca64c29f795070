// Date-time forms of the v3 API, all in UTC.

/** Send response `dateCreated`: ISO 8601 with milliseconds and a numeric offset, `2026-11-21T22:52:12.123+0000`. */
export function isoWithOffset(date: Date): string {
  return date.toISOString().replace("Z", "+0000");
}

/** Listing and SDR `timestamp`: `2026-11-21 22:52:12.123 UTC`. */
export function listingTimestamp(date: Date): string {
  const iso = date.toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 23)} UTC`;
}

/** SDR `delta`: seconds since acceptance, three decimals, at least two digits before the point (`07.250`). */
export function sdrDelta(fromMs: number, toMs: number): string {
  const ms = Math.max(0, toMs - fromMs);
  const seconds = Math.floor(ms / 1000);
  const millis = ms % 1000;
  return `${String(seconds).padStart(2, "0")}.${String(millis).padStart(3, "0")}`;
}

const LISTING_FORM = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}(?::\d{2}(?:\.\d{1,3})?)?)(?: UTC)?$/;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})$/i;

/**
 * Listing filters accept ISO 8601 (a date, or a date-time with an offset) and the listing form
 * `YYYY-MM-DD HH:mm:ss.SSS` read as UTC. A date alone means its midnight UTC. Returns null when not understood.
 */
export function parseFilterTimestamp(input: string): Date | null {
  const text = input.trim();
  let candidate: string | null = null;
  const listing = LISTING_FORM.exec(text);
  if (listing) candidate = `${listing[1]}T${listing[2]}Z`;
  else if (ISO_DATE.test(text)) candidate = `${text}T00:00:00Z`;
  else if (ISO_DATE_TIME.test(text)) candidate = text.replace(/([+-]\d{2})(\d{2})$/, "$1:$2");
  if (candidate === null) return null;
  const date = new Date(candidate);
  if (Number.isNaN(date.getTime())) return null;
  // Reject dates that JavaScript silently rolls over (2026-02-30 → March 2).
  const day = candidate.slice(0, 10);
  if (!candidate.includes("+") && !/-\d{2}:\d{2}$/.test(candidate.slice(10))) {
    if (date.toISOString().slice(0, 10) !== day) return null;
  } else {
    const [y, m, d] = day.split("-").map(Number);
    const probe = new Date(Date.UTC(y!, m! - 1, d!));
    if (probe.getUTCDate() !== d) return null;
  }
  return date;
}
