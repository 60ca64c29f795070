import { wallClock } from "@/lib/accounts/local-time";

// Times in the portal: the viewer's own zone, with the full ISO instant on hover (title) for support tickets.

export function formatTime(iso: string | Date | null | undefined): string {
  if (!iso) return "—";
  const date = typeof iso === "string" ? new Date(iso) : iso;
  if (Number.isNaN(date.getTime())) return String(iso);
  return date.toLocaleString(undefined, {
    year: "numeric",
    month: "short",
    day: "numeric",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
  });
}

/** "3 s ago", "5 min ago", "2 h ago", else the date. */
export function formatAgo(iso: string | Date | null | undefined, now = Date.now()): string {
  if (!iso) return "never";
  const date = typeof iso === "string" ? new Date(iso) : iso;
  const seconds = Math.round((now - date.getTime()) / 1000);
  if (seconds < 0) return formatTime(date);
  if (seconds < 60) return `${seconds} s ago`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ago`;
  if (seconds < 86400) return `${Math.floor(seconds / 3600)} h ago`;
  return formatTime(date);
}

/** "+1 202 555 0100"-like display of E.164 digits (kept simple: a plus and the digits). */
export function formatNumber(digits: string): string {
  return digits.startsWith("+") ? digits : `+${digits}`;
}

const pad = (n: number, width = 2) => String(n).padStart(width, "0");

/**
 * "2026-11-22 10:15:02" (with ".123" when asked) in a named time zone, such as the account's: the same text on the
 * server and in the browser, whatever their own zones.
 */
export function formatInZone(iso: string | Date, timeZone: string, options: { ms?: boolean } = {}): string {
  const date = typeof iso === "string" ? new Date(iso) : iso;
  if (Number.isNaN(date.getTime())) return String(iso);
  const c = wallClock(date, timeZone);
  const time = `${pad(c.hour)}:${pad(c.minute)}:${pad(c.second)}${options.ms ? `.${pad(c.millisecond, 3)}` : ""}`;
  return `${c.year}-${pad(c.month)}-${pad(c.day)} ${time}`;
}

/** "≈ 40 s", "≈ 2 min", "≈ 3 h": a rough duration for waits and ages. */
export function formatDuration(seconds: number): string {
  if (seconds < 1) return "< 1 s";
  if (seconds < 60) return `≈ ${Math.round(seconds)} s`;
  if (seconds < 3600) return `≈ ${Math.round(seconds / 60)} min`;
  if (seconds < 86400) return `≈ ${Math.round(seconds / 360) / 10} h`;
  return `≈ ${Math.round(seconds / 8640) / 10} d`;
}
