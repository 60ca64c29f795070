import { z } from "zod";

// The opt admin API's input, as zod schemas with no server imports: the routes parse with them and the portal's
// forms validate with the very same ones. Whether a number is a real E.164 number is the server's to say (full
// phone metadata); here only its shape is checked.

const TN_SHAPE = /^\+?[1-9]\d{1,14}$/;

const phone = z
  .string()
  .trim()
  .min(1, "enter a number")
  .max(32)
  .regex(TN_SHAPE, "an E.164 number: country code and digits, such as +14155550123");

export const optChangeInput = z
  .object({
    number: phone,
    action: z.enum(["in", "out"]),
    note: z.string().trim().max(500).optional(),
  })
  .strict();
export type OptChangeInput = z.infer<typeof optChangeInput>;

export const FOOTER_MAX = 120;
// A reply is at most three GSM-7 segments.
export const REPLY_MAX = 459;

// A footer must fit beside a text in a message. null restores the text's default.
export const optSettingsInput = z
  .object({
    footer: z.string().trim().min(1).max(FOOTER_MAX).nullable(),
    stopReply: z.string().trim().min(1).max(REPLY_MAX).nullable(),
    startReply: z.string().trim().min(1).max(REPLY_MAX).nullable(),
    helpReply: z.string().trim().min(1).max(REPLY_MAX).nullable(),
  })
  .partial()
  .strict();
export type OptSettingsInput = z.infer<typeof optSettingsInput>;

const dateTime = z.string().refine((v) => !Number.isNaN(new Date(v).getTime()), "not an ISO 8601 date or date-time");

const emptyAsMissing = (value: unknown) => (value === "" ? undefined : value);

/** GET opt/events: the trail's filters and page (and `format=csv` for the whole filtered trail as a file). */
export const optEventQuery = z.object({
  number: z.preprocess(emptyAsMissing, phone.optional()),
  action: z.preprocess(emptyAsMissing, z.enum(["in", "out"]).optional()),
  /** keyword: the phone texted it; admin: a person changed it (portal, admin API or CLI). */
  source: z.preprocess(emptyAsMissing, z.enum(["keyword", "admin"]).optional()),
  /** Inclusive. */
  since: z.preprocess(emptyAsMissing, dateTime.optional()),
  /** Exclusive. */
  until: z.preprocess(emptyAsMissing, dateTime.optional()),
  start: z.preprocess(emptyAsMissing, z.coerce.number().int().min(0).max(1_000_000_000).default(0)),
  count: z.preprocess(emptyAsMissing, z.coerce.number().int().min(1).max(1000).default(100)),
  format: z.preprocess(emptyAsMissing, z.enum(["csv"]).optional()),
});
export type OptEventQuery = z.infer<typeof optEventQuery>;

/** GET opt/numbers: numbers with an opt record, a page at a time. */
export const optNumbersQuery = z.object({
  status: z.preprocess(emptyAsMissing, z.enum(["in", "out"]).optional()),
  start: z.preprocess(emptyAsMissing, z.coerce.number().int().min(0).max(1_000_000_000).default(0)),
  count: z.preprocess(emptyAsMissing, z.coerce.number().int().min(1).max(10_000).default(10_000)),
});
export type OptNumbersQuery = z.infer<typeof optNumbersQuery>;
