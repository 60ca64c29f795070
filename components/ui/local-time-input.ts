// <input type="datetime-local"> speaks the viewer's local wall time without a zone ("2026-11-22T09:30"); the API
// speaks ISO 8601 instants. These convert between the two.

/** The instant a datetime-local value stands for, as ISO 8601 (undefined when empty or unreadable). */
export function localInputToIso(value: string): string | undefined {
  if (!value) return undefined;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

/** A datetime-local value for an instant, in the viewer's zone. */
export function isoToLocalInput(iso: string | Date): string {
  const date = typeof iso === "string" ? new Date(iso) : iso;
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}
