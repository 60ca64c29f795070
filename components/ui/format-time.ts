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
