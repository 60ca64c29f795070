"use client";

import { useViewer } from "@/components/portal/portal-context";
import { formatInZone } from "./format-time";
import { useHydrated } from "./local-time";

/** "5 min ago" under a day, else null (the caller shows the time itself). */
function recently(iso: string, now: number): string | null {
  const seconds = Math.round((now - new Date(iso).getTime()) / 1000);
  if (seconds < 0 || seconds >= 86400) return null;
  if (seconds < 60) return `${seconds} s ago`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ago`;
  return `${Math.floor(seconds / 3600)} h ago`;
}

/**
 * A time in the account's time zone (Settings), as the Messages page shows it, so a message reads the same time
 * everywhere whatever the browser's zone. With `ago`, times within a day read "5 min ago" once the page is live in
 * the browser: the server's render and the browser's first render both show the time itself (a relative time
 * rendered on the server would disagree with the browser's clock a moment later and break hydration).
 */
export function AccountTime({ iso, ago = false }: { iso: string | null | undefined; ago?: boolean }) {
  const { timeZone } = useViewer();
  const hydrated = useHydrated();
  if (!iso) return <span>{ago ? "never" : "—"}</span>;
  const exact = formatInZone(iso, timeZone).slice(0, ago ? 16 : 19);
  const text = (ago && hydrated && recently(iso, Date.now())) || exact;
  return (
    <time dateTime={iso} title={`${formatInZone(iso, timeZone)} (${timeZone})`}>
      {text}
    </time>
  );
}
