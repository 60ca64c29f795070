import { z } from "zod";

// The contacts API's input, as zod schemas with no server imports: the routes parse with them and the portal's
// forms validate with the very same ones. Whether a number is a real E.164 number is the server's to say.

export const TAG_MAX = 40;
export const TAGS_MAX = 20;

const emptyAsMissing = (value: unknown) => (value === "" ? undefined : value);

export const contactEmail = z
  .string()
  .trim()
  .max(254)
  .refine((v) => v === "" || z.email().safeParse(v).success, "an e-mail address, such as ana@example.com");

export const contactTags = z
  .array(z.string().trim().max(TAG_MAX, `a tag has at most ${TAG_MAX} characters`))
  .max(TAGS_MAX, `at most ${TAGS_MAX} tags`)
  .transform((tags) => [...new Set(tags.filter((t) => t !== ""))]);

/** PUT contacts/{number}: the fields to change (those left out keep their value). */
export const contactInput = z
  .object({
    name: z.string().trim().max(200),
    email: contactEmail,
    company: z.string().trim().max(200),
    tags: contactTags,
    note: z.string().trim().max(2000),
  })
  .partial()
  .strict();
export type ContactInput = z.infer<typeof contactInput>;

/** GET contacts: a search (name, number, e-mail, company or tag) and a page. */
export const contactListQuery = z.object({
  q: z.preprocess(emptyAsMissing, z.string().trim().max(200).optional()),
  start: z.preprocess(emptyAsMissing, z.coerce.number().int().min(0).max(1_000_000_000).default(0)),
  count: z.preprocess(emptyAsMissing, z.coerce.number().int().min(1).max(100).default(25)),
  /** Only these numbers (comma-separated digits, at most 100): the names a page of messages shows. */
  numbers: z.preprocess(
    emptyAsMissing,
    z
      .string()
      .max(2000)
      .regex(/^\+?\d{1,15}(,\+?\d{1,15})*$/, "numbers separated by commas")
      .transform((v) => v.split(",").map((n) => n.replace("+", "")))
      .refine((list) => list.length <= 100, "at most 100 numbers")
      .optional(),
  ),
});
export type ContactListQuery = z.infer<typeof contactListQuery>;

/** POST contacts/import: the CSV file's text (a JSON body: portal writes are JSON only). */
export const contactImportInput = z.object({ csv: z.string().min(1, "the file is empty") }).strict();

/** Tags typed in one box, separated by commas or semicolons. */
export function splitTags(text: string): string[] {
  return text
    .split(/[,;]/)
    .map((t) => t.trim())
    .filter((t) => t !== "");
}

/** A page of the Contacts screen. */
export const CONTACTS_PAGE = 25;
