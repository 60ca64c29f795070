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

/** Digits of a TN that libphonenumber-js (full metadata) accepts as a valid E.164 number, or null. */
export function validTn(input: string): string | null {
  const digits = tnDigits(input);
  if (digits === null) return null;
  return isValidPhoneNumber(`+${digits}`) ? digits : null;
}

export function withPlus(digits: string): string {
  return `+${digits}`;
}
