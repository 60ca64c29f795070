// Times in an account's time zone (or any IANA zone), from the platform's time-zone data via Intl: the wall clock
// there, and "today" there (the dashboard's figures). No server imports: the portal's components format with it too.

export interface WallClock {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  millisecond: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

/** The date and time a clock in `timeZone` shows at `date`. */
export function wallClock(date: Date, timeZone: string): WallClock {
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
    // Zones differ from UTC by whole seconds (minutes, in fact, since 1972).
    millisecond: date.getUTCMilliseconds(),
  };
}

/** How far the zone's wall clock is ahead of UTC at `date`, in milliseconds. */
function offsetMs(date: Date, timeZone: string): number {
  const p = wallClock(date, timeZone);
  const wall = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second, p.millisecond);
  return wall - date.getTime();
}

/** The local date (YYYY-MM-DD) at `now` in `timeZone`, and the instant that day began there. */
export function localDay(now: Date, timeZone: string): { date: string; start: Date } {
  const p = wallClock(now, timeZone);
  const midnightAsUtc = Date.UTC(p.year, p.month - 1, p.day);
  // The offset at midnight may differ from now's (a DST change during the day): correct with the offset there.
  let start = midnightAsUtc - offsetMs(new Date(midnightAsUtc - offsetMs(now, timeZone)), timeZone);
  // A zone whose day starts at 01:00 on a change day (no midnight): the first instant of that date.
  if (wallClock(new Date(start), timeZone).day !== p.day) start += 3600_000;
  const date = `${p.year}-${String(p.month).padStart(2, "0")}-${String(p.day).padStart(2, "0")}`;
  return { date, start: new Date(start) };
}
