import { z } from "zod";
import { UUID_PATTERN } from "../db/ids";
import { provisionNumberInput } from "./number-schema";

// The requests of /v3/numbers, for the handlers (lib/numbers/v3-numbers.ts) and the OpenAPI document alike.

const EXAMPLE_ACCOUNT = "0195f3a2-7c4e-7b1a-9d2e-4f5a6b7c8d9e";

const accountIdMeta = (where: string) => ({
  format: "uuid",
  description: `The account (${where}; absent: MissingAccountId). Must be the credentials' account, else 403 Forbidden.`,
  example: EXAMPLE_ACCOUNT,
});

/** Query parameters of GET /v3/numbers (strings on the wire; checked in listNumbersV3). */
export const numbersQuerySchema = z.object({
  accountId: z.string().meta(accountIdMeta("required")),
  start: z
    .string()
    .meta({
      type: "integer",
      minimum: 0,
      maximum: 1_000_000_000,
      default: 0,
      description: "Offset of the first number (paging).",
    })
    .optional(),
  count: z
    .string()
    .meta({
      type: "integer",
      minimum: 1,
      maximum: 1000,
      default: 50,
      description: "Numbers to return, 1 to 1000.",
    })
    .optional(),
});

/** The body of POST /v3/numbers: the portal form's fields plus the account. Unknown fields are ignored. */
export const provisionRequestSchema = z.object({
  accountId: z
    .string()
    .regex(UUID_PATTERN, "must be a UUID")
    .meta({
      ...accountIdMeta("required"),
      pattern: "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[1-8][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}$",
    }),
  ...provisionNumberInput.shape,
});

/** Query parameters of DELETE /v3/numbers/{number}. */
export const releaseQuerySchema = z.object({
  accountId: z.string().meta(accountIdMeta("required")),
});
