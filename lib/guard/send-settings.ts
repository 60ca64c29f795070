import { db } from "../db/client";
import { env } from "../env";
import { processSingleton } from "../process-singletons";
import { destinationFacts } from "./destination-facts";

// What a send needs of its account's settings: the smart-encoding default and the guard rails (the countries it may
// send to, its daily limits, the burst threshold). Read at most once per API_KEY_CACHE_SECONDS per process, like keys
// and number owners: a change made through the portal is forgotten at once in its own process (forgetSendSettings),
// in others within that time.

export interface SendSettings {
  smartEncoding: boolean;
  timeZone: string;
  /** The countries sends may go to; null: any. */
  allowedCountries: Set<string> | null;
  /** The countries of the account's own numbers: a destination elsewhere is unusual (burst-hold.ts). */
  homeCountries: Set<string>;
  dailyMessageLimit: number;
  dailySegmentLimit: number;
  burstHoldThreshold: number;
}

const cache = processSingleton("sendSettings", () => new Map<string, { settings: SendSettings; at: number }>());

/** The allowed countries as an admin set them: "" the countries of the account's numbers, "*" any, else a list. */
export function parseAllowedCountries(stored: string, home: Set<string>): Set<string> | null {
  const trimmed = stored.trim();
  if (trimmed === "*") return null;
  if (trimmed === "") return home;
  return new Set(
    trimmed
      .split(",")
      .map((c) => c.trim().toUpperCase())
      .filter(Boolean),
  );
}

export async function sendSettings(accountId: string): Promise<SendSettings> {
  const now = Date.now();
  const hit = cache.get(accountId);
  if (hit && now - hit.at < env().API_KEY_CACHE_SECONDS * 1000) return hit.settings;
  const [account, numbers] = await Promise.all([
    db().account.findUnique({
      where: { id: accountId },
      select: {
        smartEncoding: true,
        timeZone: true,
        allowedCountries: true,
        dailyMessageLimit: true,
        dailySegmentLimit: true,
        burstHoldThreshold: true,
      },
    }),
    db().phoneNumber.findMany({ where: { accountId }, select: { number: true } }),
  ]);
  const homeCountries = new Set(numbers.map((n) => destinationFacts(n.number).country));
  const settings: SendSettings = {
    smartEncoding: account?.smartEncoding ?? false,
    timeZone: account?.timeZone ?? "UTC",
    allowedCountries: parseAllowedCountries(account?.allowedCountries ?? "", homeCountries),
    homeCountries,
    dailyMessageLimit: account?.dailyMessageLimit ?? 0,
    dailySegmentLimit: account?.dailySegmentLimit ?? 0,
    burstHoldThreshold: account?.burstHoldThreshold ?? 0,
  };
  if (cache.size > 10_000) cache.clear();
  cache.set(accountId, { settings, at: now });
  return settings;
}

/** Forgets what this process knows of an account's send settings: they, or its numbers, just changed here. */
export function forgetSendSettings(accountId?: string): void {
  if (accountId === undefined) cache.clear();
  else cache.delete(accountId);
}
