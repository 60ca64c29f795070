import { z } from "zod";
import { validTn } from "../messaging/phone-number";

// What a number's provisioning and changes accept. No server imports: the portal's forms validate with these very
// schemas, so the error shown beside a field is the one the route would answer. The .meta() calls document the
// fields for lib/api/openapi.ts and change no validation.

export const NUMBER_LIMITS = {
  maxLabelChars: 100,
  // The seed: at most 1 text a second leaves one number by default. Above 100 a second a long code is no longer a
  // long code; the account's own limit still caps the sum of its numbers.
  maxRatePerSecond: 100,
  defaultRatePerSecond: 1,
} as const;

const EXAMPLE = "+14155550100";

export const numberField = z
  .string({ error: `Enter the number with its country code, such as ${EXAMPLE}.` })
  .trim()
  .min(1, `Enter the number with its country code, such as ${EXAMPLE}.`)
  .max(32, "A telephone number has at most 15 digits.")
  .refine((value) => value === "" || validTn(value) !== null, {
    error: (issue) =>
      `"${String(issue.input)}" is not a valid telephone number: give the country code and digits, such as ${EXAMPLE}.`,
  })
  .meta({
    description:
      "The telephone number: digits with country code, '+' optional. Must be a valid E.164 number for its country.",
    example: "14155550100",
  });

export const labelField = z
  .string({ error: "The label must be text." })
  .trim()
  .max(NUMBER_LIMITS.maxLabelChars, `At most ${NUMBER_LIMITS.maxLabelChars} characters.`)
  .meta({
    description: `A name for the number, shown in the portal and in listings (at most ${NUMBER_LIMITS.maxLabelChars} characters; "" for none).`,
    example: "Support line",
  });

export const rateField = z
  .number({ error: "The rate must be a number of messages a second." })
  .gt(0, "The rate must be more than 0 messages a second.")
  .max(NUMBER_LIMITS.maxRatePerSecond, `The rate can be at most ${NUMBER_LIMITS.maxRatePerSecond} messages a second.`)
  .meta({
    description: `Messages (segments) a second that may leave this number, more than 0 and at most ${NUMBER_LIMITS.maxRatePerSecond}; default ${NUMBER_LIMITS.defaultRatePerSecond}. The account's limit still caps the sum of its numbers.`,
    example: 1,
  });

export const carrierField = z
  .string({ error: "The carrier is the name of one of the account's carrier connections." })
  .trim()
  .max(60, "A carrier connection's name has at most 60 characters.")
  .nullable()
  .meta({
    description:
      "The carrier connection (its name or id) the number's messages leave through and its inbound arrives on; null or \"\" for the deployment's default connection.",
    example: "twilio-main",
  });

/** Provisioning: the portal's "Add number" form, the admin API and POST /v3/numbers (which adds accountId). */
export const provisionNumberInput = z.object({
  number: numberField,
  label: labelField.optional(),
  ratePerSecond: rateField.optional(),
  carrier: carrierField.optional(),
});

export type ProvisionNumberInput = z.infer<typeof provisionNumberInput>;

/** A change of label, rate and/or carrier connection. */
export const updateNumberInput = z
  .object({ label: labelField.optional(), ratePerSecond: rateField.optional(), carrier: carrierField.optional() })
  .refine((value) => value.label !== undefined || value.ratePerSecond !== undefined || value.carrier !== undefined, {
    error: "Give a label, a rate (ratePerSecond), a carrier, or more than one.",
  });

export type UpdateNumberInput = z.infer<typeof updateNumberInput>;

/** One page of the portal's list (the admin API's query string). */
export const NUMBERS_PAGE_SIZE = 20;

export const numbersPageQuery = z.object({
  start: z.coerce.number().int().min(0).max(1_000_000_000).default(0),
  count: z.coerce.number().int().min(1).max(100).default(NUMBERS_PAGE_SIZE),
});

/** A number as the portal shows it (the admin API's answer). */
export interface PortalNumber {
  /** E.164 digits without '+'. */
  number: string;
  label: string;
  ratePerSecond: number;
  /** Outbound messages waiting to leave from it right now. */
  queued: number;
  /** The carrier connection's name; null: the deployment's default connection. */
  carrier: string | null;
  createdAt: string;
}
