"use client";

import { useSyncExternalStore } from "react";
import { formatAgo, formatTime } from "./format-time";

const subscribe = () => () => {};

/** True in the browser once hydrated; false on the server and during hydration. */
export function useHydrated(): boolean {
  return useSyncExternalStore(
    subscribe,
    () => true,
    () => false,
  );
}

/**
 * A time in the viewer's zone and locale. The server does not know either, so it renders the UTC instant and the
 * browser replaces it after hydration (no mismatch between the two renders); the full instant is in the title.
 */
export function LocalTime({ iso, ago = false }: { iso: string | null | undefined; ago?: boolean }) {
  const hydrated = useHydrated();
  if (!iso) return <span>{ago ? "never" : "—"}</span>;
  const text = hydrated ? (ago ? formatAgo(iso) : formatTime(iso)) : `${iso.slice(0, 16).replace("T", " ")} UTC`;
  return (
    <time dateTime={iso} title={iso}>
      {text}
    </time>
  );
}
