import { isValidPhoneNumber } from "libphonenumber-js/max";

// The decision: requests accept digits with country code, with or without a leading '+'. Send responses show
// '+digits'; listings and webhook payloads show digits alone. Storage keeps digits alone.
const TN_SHAPE = /^\+?[1-9]\d{1,14}$/;

/** Digits of a well-formed TN, or null; says nothing about whether the number exists. */
export function tnDigits(input: string): string | null {
  const trimmed = input.trim();
  if (!TN_SHAPE.test(trimmed)) return null;
  return trimmed.startsWith("+") ? trimmed.slice(1) : trimmed;
}

// Validation with full metadata costs ~60 µs a number, and the same numbers come back all the time (every send
// from one `from`, replies to the same phones): remember the answers, a bounded number of them.
const validity = new Map<string, boolean>();
const MAX_REMEMBERED = 200_000;

/** Digits of a TN that libphonenumber-js (full metadata) accepts as a valid E.164 number, or null. */
export function validTn(input: string): string | null {
  const digits = tnDigits(input);
  if (digits === null) return null;
  let valid = validity.get(digits);
  if (valid === undefined) {
    valid = isValidPhoneNumber(`+${digits}`);
    if (validity.size >= MAX_REMEMBERED) validity.clear();
    validity.set(digits, valid);
  }
  return valid ? digits : null;
}

export function withPlus(digits: string): string {
  return `+${digits}`;
}
