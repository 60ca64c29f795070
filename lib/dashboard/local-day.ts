// "Today" in an account's time zone: the calendar date there and the instant its midnight was (DST-aware, from the
// platform's time-zone data via Intl).

const formatters = new Map<string, Intl.DateTimeFormat>();

function partsIn(
  date: Date,
  timeZone: string,
): Record<"year" | "month" | "day" | "hour" | "minute" | "second", number> {
  let format = formatters.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
    });
    formatters.set(timeZone, format);
  }
  const parts = Object.fromEntries(format.formatToParts(date).map((p) => [p.type, Number(p.value)]));
  return {
    year: parts.year!,
    month: parts.month!,
    day: parts.day!,
    hour: parts.hour!,
    minute: parts.minute!,
    second: parts.second!,
  };
}

/** How far the zone's wall clock is ahead of UTC at `date`, in milliseconds. */
function offsetMs(date: Date, timeZone: string): number {
  const p = partsIn(date, timeZone);
  const wall = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
  return wall - Math.floor(date.getTime() / 1000) * 1000;
}

/** The local date (YYYY-MM-DD) at `now` in `timeZone`, and the instant that day began there. */
export function localDay(now: Date, timeZone: string): { date: string; start: Date } {
  const p = partsIn(now, timeZone);
  const midnightAsUtc = Date.UTC(p.year, p.month - 1, p.day);
  // The offset at midnight may differ from now's (a DST change during the day): correct with the offset there.
  let start = midnightAsUtc - offsetMs(new Date(midnightAsUtc - offsetMs(now, timeZone)), timeZone);
  // A zone whose day starts at 01:00 on a change day (no midnight): the first instant of that date.
  if (partsIn(new Date(start), timeZone).day !== p.day) start += 3600_000;
  const date = `${p.year}-${String(p.month).padStart(2, "0")}-${String(p.day).padStart(2, "0")}`;
  return { date, start: new Date(start) };
}
