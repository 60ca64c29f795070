import { parsePhoneNumberFromString } from "libphonenumber-js/max";
import metadata from "libphonenumber-js/metadata.max.json";

// The decision: requests accept digits with country code, with or without a leading '+'. Send responses show
// '+digits'; listings and webhook payloads show digits alone. Storage keeps digits alone.
const TN_SHAPE = /^\+?[1-9]\d{1,14}$/;

/** Digits of a well-formed TN, or null; says nothing about whether the number exists. */
export function tnDigits(input: string): string | null {
  const trimmed = input.trim();
  if (!TN_SHAPE.test(trimmed)) return null;
  return trimmed.startsWith("+") ? trimmed.slice(1) : trimmed;
}

/** What the send path needs to know of a number given as digits with country code. */
export interface NumberFacts {
  /** Whether libphonenumber-js (full metadata) accepts it as a valid E.164 number. */
  valid: boolean;
  /** ISO 3166 alpha-2; "001" for a non-geographic number (+800, +882…). */
  country: string;
  /** Country calling code and the first three digits of the national number: the range a burst is counted in. */
  prefix: string;
  /** A premium-rate or shared-cost number (the ones SMS pumping earns from). */
  premium: boolean;
}

// Parsing with full metadata costs 8–20 µs a number (a NANPA number is matched against each country's patterns to
// find its own), and the same numbers come back all the time (every send from one `from`, replies to the same
// phones): one parse answers validity and the guard rails' facts alike, remembered for a bounded number of them.
const remembered = new Map<string, NumberFacts>();
const MAX_REMEMBERED = 100_000;

const callingCodes = (metadata as { country_calling_codes: Record<string, string[]> }).country_calling_codes;

/** The facts of a well-formed TN's digits (tnDigits). */
export function numberFacts(digits: string): NumberFacts {
  const known = remembered.get(digits);
  if (known) return known;
  const parsed = parsePhoneNumberFromString(`+${digits}`, { extract: false });
  // With full metadata a number is valid exactly when it has a type (libphonenumber-js's isValid).
  const type = parsed?.getType();
  const facts: NumberFacts = parsed
    ? {
        valid: type !== undefined,
        // A number libphonenumber cannot place (a test range such as 555-0100) counts as the code's main country.
        country: parsed.country ?? callingCodes[parsed.countryCallingCode]?.[0] ?? "001",
        prefix: `${parsed.countryCallingCode}${parsed.nationalNumber.slice(0, 3)}`,
        premium: type === "PREMIUM_RATE" || type === "SHARED_COST",
      }
    : { valid: false, country: "001", prefix: digits.slice(0, 4), premium: false };
  if (remembered.size >= MAX_REMEMBERED) remembered.clear();
  remembered.set(digits, facts);
  return facts;
}

/** Digits of a TN that libphonenumber-js (full metadata) accepts as a valid E.164 number, or null. */
export function validTn(input: string): string | null {
  const digits = tnDigits(input);
  return digits !== null && numberFacts(digits).valid ? digits : null;
}

export function withPlus(digits: string): string {
  return `+${digits}`;
}
