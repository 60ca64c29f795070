import { z } from "zod";
import { ApiError } from "../api/api-error";
import { assertAccount, type ApiPrincipal } from "../api/authenticate";
import { parseInput } from "../api/parse-input";
import { actorLabel } from "../audit/audit-trail";
import { accountIdOf } from "../api/account-id";
import { DOC_EXAMPLES, uuidField } from "../messaging/message-serializers";
import { listingTimestamp } from "../messaging/time-format";
import { listNumbers, provisionNumber, releaseNumber, type NumberRow } from "./manage-numbers";
import { numbersQuerySchema, provisionRequestSchema } from "./v3-number-schema";

// /v3/numbers: the account's numbers through the public API, with its error style; the routes put the results in
// the v3 envelope.

function invalid(parameter: string, why: string): ApiError {
  return new ApiError("InvalidRequest", { detail: `'${parameter}' ${why}`, field: parameter });
}

function queryValue(params: URLSearchParams, name: string): string | undefined {
  const value = params.get(name);
  return value === null || value.trim() === "" ? undefined : value.trim();
}

function integer(parameter: string, value: string, min: number, max: number): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < min || n > max)
    throw invalid(parameter, `must be a whole number from ${min} to ${max}`);
  return n;
}

// A number as /v3 shows it: E.164 digits without '+', as listings do, and the listing's timestamp form. The OpenAPI
// document's NumberResult is generated from this schema.
export const numberResultSchema = z.object({
  number: z.string().meta({ description: "E.164 digits without '+', as listings show them.", example: "14155550100" }),
  label: z.string().meta({ description: 'The number\'s label; "" when none.', example: "Support line" }),
  ratePerSecond: z.number().meta({
    description: "Messages (segments) a second that may leave this number; the account's limit caps the sum.",
    example: 1,
  }),
  carrier: z.string().nullable().meta({
    description:
      "The carrier connection the number is routed to (its name); null: the deployment's default connection.",
    example: "twilio-main",
  }),
  createdAt: z.string().meta({
    description: "When the number was provisioned to the account, UTC, in the listing form.",
    example: "2026-11-21 22:52:12.123 UTC",
  }),
});

export type V3Number = z.infer<typeof numberResultSchema>;

// The data of each /v3/numbers answer; the OpenAPI document's responses are generated from these schemas.
export const numbersPageSchema = z.object({
  total: z.number().int().meta({ description: "Number of the account's numbers (all pages)." }),
  position: z.number().int().meta({ description: "Offset of this page (= start)." }),
  numbers: z.array(numberResultSchema),
});

export const provisionedNumberSchema = numberResultSchema.extend({
  accountId: uuidField("The account.", DOC_EXAMPLES.accountId),
  created: z.boolean().meta({
    description: "true: provisioned now. false: the account held it already; nothing changed.",
  }),
});

export const releasedNumberSchema = z.object({
  accountId: uuidField("The account.", DOC_EXAMPLES.accountId),
  number: z.string().meta({ description: "The released number, E.164 digits without '+'.", example: "14155550100" }),
  released: z.literal(true),
  cancelledMessages: z.number().int().min(0).meta({
    description: "Messages that were queued from the number, now cancelled (rejected, reason FromNotOwned).",
  }),
});

export function toV3Number(row: NumberRow): V3Number {
  return {
    number: row.number,
    label: row.label,
    ratePerSecond: row.ratePerSecond,
    carrier: row.carrier,
    createdAt: listingTimestamp(row.createdAt),
  };
}

/** GET /v3/numbers: one page of the account's numbers, in number order. */
export async function listNumbersV3(input: {
  principal: ApiPrincipal;
  params: URLSearchParams;
}): Promise<Record<string, unknown> & z.infer<typeof numbersPageSchema>> {
  const { principal, params } = input;
  const accountId = accountIdOf(queryValue(params, "accountId"));
  const echo: Record<string, string> = {};
  for (const name of Object.keys(numbersQuerySchema.shape)) {
    const value = queryValue(params, name);
    if (value !== undefined) echo[name] = value;
  }
  const start = echo.start === undefined ? 0 : integer("start", echo.start, 0, 1_000_000_000);
  const count = echo.count === undefined ? 50 : integer("count", echo.count, 1, 1000);
  assertAccount(principal, accountId);
  const page = await listNumbers({ accountId, start, count });
  return { ...echo, total: page.total, position: start, numbers: page.numbers.map(toV3Number) };
}

/** POST /v3/numbers: provisions a number to the account; the account's own number again is answered as it is. */
export async function provisionNumberV3(input: {
  principal: ApiPrincipal;
  raw: unknown;
}): Promise<z.infer<typeof provisionedNumberSchema>> {
  const { principal, raw } = input;
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    throw new ApiError("InvalidRequest", { detail: "the body must be a JSON object" });
  }
  accountIdOf((raw as Record<string, unknown>).accountId);
  const request = parseInput(provisionRequestSchema, raw);
  assertAccount(principal, request.accountId);
  const provisioned = await provisionNumber({
    ...request,
    actor: actorLabel({ kind: "apiKey", apiKeyId: principal.apiKeyId }),
  });
  return { accountId: request.accountId, ...toV3Number(provisioned), created: provisioned.created };
}

/** DELETE /v3/numbers/{number}: releases one of the account's numbers. */
export async function releaseNumberV3(input: { principal: ApiPrincipal; number: string; params: URLSearchParams }) {
  const { principal, params } = input;
  const accountId = accountIdOf(queryValue(params, "accountId"));
  assertAccount(principal, accountId);
  const released = await releaseNumber({
    accountId,
    number: input.number,
    actor: actorLabel({ kind: "apiKey", apiKeyId: principal.apiKeyId }),
  });
  return { accountId, ...released, released: true as const };
}
