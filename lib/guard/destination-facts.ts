import { parsePhoneNumber } from "libphonenumber-js/max";
import metadata from "libphonenumber-js/metadata.max.json";

// What the guard rails need to know of a phone number: its country (ISO 3166 alpha-2), the prefix a burst is counted
// by, and whether it is a premium-rate or shared-cost number (the ones SMS pumping earns from). Read from
// libphonenumber-js's full metadata and remembered, a bounded number of them, as phone-number.ts does.

export interface DestinationFacts {
  /** ISO 3166 alpha-2; "001" for a non-geographic number (+800, +882…). */
  country: string;
  /** Country calling code and the first three digits of the national number: the range a burst is counted in. */
  prefix: string;
  premium: boolean;
}

const remembered = new Map<string, DestinationFacts>();
const MAX_REMEMBERED = 100_000;

const callingCodes = (metadata as { country_calling_codes: Record<string, string[]> }).country_calling_codes;

/** The facts of a number given as digits with country code (a number validTn accepted, or an account's own). */
export function destinationFacts(digits: string): DestinationFacts {
  const known = remembered.get(digits);
  if (known) return known;
  let facts: DestinationFacts;
  try {
    const parsed = parsePhoneNumber(`+${digits}`);
    const code = parsed.countryCallingCode;
    const type = parsed.getType();
    facts = {
      // A number libphonenumber cannot place (a test range such as 555-0100) counts as the code's main country.
      country: parsed.country ?? callingCodes[code]?.[0] ?? "001",
      prefix: `${code}${parsed.nationalNumber.slice(0, 3)}`,
      premium: type === "PREMIUM_RATE" || type === "SHARED_COST",
    };
  } catch {
    facts = { country: "001", prefix: digits.slice(0, 4), premium: false };
  }
  if (remembered.size >= MAX_REMEMBERED) remembered.clear();
  remembered.set(digits, facts);
  return facts;
}

/** Every ISO 3166 alpha-2 code the metadata knows a numbering plan of. */
export function knownCountries(): Set<string> {
  return new Set(Object.keys((metadata as { countries: Record<string, unknown> }).countries));
}
