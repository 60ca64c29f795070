import { formatAgo, formatTime } from "./format-time";

function formatDay(iso: string, timeZone?: string): string {
  return new Date(iso).toLocaleDateString(undefined, { year: "numeric", month: "short", day: "numeric", timeZone });
}

/**
 * A time as the viewer reads it (their zone and locale; "5 min ago" with `ago`; the day alone with `day`, or the
 * UTC day with `utcDay` for instants that are a day in UTC, such as a key's expiry), the exact instant on hover.
 * The server's first render may differ from the browser's (zone, locale, the clock moved on): React keeps the
 * browser's.
 */
export function TimeText({
  iso,
  ago = false,
  day = false,
  utcDay = false,
  none,
}: {
  iso: string | null | undefined;
  ago?: boolean;
  day?: boolean;
  utcDay?: boolean;
  none?: string;
}) {
  if (!iso) return <span className="text-slate-500">{none ?? (ago ? "never" : "—")}</span>;
  const text = ago ? formatAgo(iso) : utcDay ? formatDay(iso, "UTC") : day ? formatDay(iso) : formatTime(iso);
  return (
    <time dateTime={iso} title={iso} suppressHydrationWarning>
      {text}
    </time>
  );
}
