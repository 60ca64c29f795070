import { createHash } from "node:crypto";

// The decision: the service marks a message bulk on its own when the same body goes from one account to more than
// 20 destinations within 10 minutes. Counted per server process (a deployment with several servers counts per
// server, so the threshold there is per server).
export const AUTO_BULK_DESTINATIONS = 20;
export const AUTO_BULK_WINDOW_MS = 10 * 60_000;
const MAX_TRACKED = 50_000;

interface Seen {
  at: number;
  count: number;
}

export class SameTextCounter {
  private readonly seen = new Map<string, Seen[]>();

  /** Records `destinations` more for this account and text at `now`; true when the window now holds more than 20. */
  record(accountId: string, body: string, destinations: number, now: number): boolean {
    const key = createHash("sha1").update(accountId).update("\0").update(body).digest("base64");
    const recent = (this.seen.get(key) ?? []).filter((s) => now - s.at < AUTO_BULK_WINDOW_MS);
    recent.push({ at: now, count: destinations });
    if (!this.seen.has(key) && this.seen.size >= MAX_TRACKED) this.prune(now);
    this.seen.set(key, recent);
    return recent.reduce((sum, s) => sum + s.count, 0) > AUTO_BULK_DESTINATIONS;
  }

  private prune(now: number): void {
    for (const [key, list] of this.seen) {
      if (list.every((s) => now - s.at >= AUTO_BULK_WINDOW_MS)) this.seen.delete(key);
    }
    if (this.seen.size >= MAX_TRACKED) this.seen.clear();
  }
}
