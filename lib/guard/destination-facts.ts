import { numberFacts, type NumberFacts } from "../messaging/phone-number";
import metadata from "libphonenumber-js/metadata.max.json";

// What the guard rails need to know of a phone number: its country (ISO 3166 alpha-2), the prefix a burst is counted
// by, and whether it is a premium-rate or shared-cost number (the ones SMS pumping earns from). Read from
// the same parse as a number's validity (numberFacts in lib/messaging/phone-number.ts), remembered with it.

/** Its country, burst prefix and premium type (NumberFacts, which documents each, less its validity). */
export type DestinationFacts = Omit<NumberFacts, "valid">;

/** The facts of a number given as digits with country code (a number validTn accepted, or an account's own). */
export function destinationFacts(digits: string): DestinationFacts {
  return numberFacts(digits);
}

/** Every ISO 3166 alpha-2 code the metadata knows a numbering plan of. */
export function knownCountries(): Set<string> {
  return new Set(Object.keys((metadata as { countries: Record<string, unknown> }).countries));
}
