import { z } from "zod";
import type { OpenAPIRegistry } from "@asteasolutions/zod-to-openapi";
import { NUMBER_LIMITS } from "../../numbers/number-schema";
import { numbersQuerySchema, provisionRequestSchema, releaseQuerySchema } from "../../numbers/v3-number-schema";
import {
  numberResultSchema,
  numbersPageSchema,
  provisionedNumberSchema,
  releasedNumberSchema,
} from "../../numbers/v3-numbers";
import { DOC_EXAMPLES } from "../../messaging/message-serializers";
import { successCodes } from "../error-codes";
import type { ErrorResponses } from "./errors";
import { apiVersion, documented, envelopeOf, queryAnswer, requestIdHeader, withData } from "./shared";

// GET and POST /v3/numbers, DELETE /v3/numbers/{number} in the OpenAPI document: the number schema is the
// serializer's (lib/numbers/v3-numbers.ts).

const EXAMPLE_ACCOUNT = DOC_EXAMPLES.accountId;

const NUMBERS_LIST_DESCRIPTION = `Lists the account's telephone numbers in number order, a page at a time. \`accountId\` is required and must be the
credentials' account. \`data\` echoes the query parameters as given, plus \`total\` (all the account's numbers), \`position\` (= start) and
\`numbers\`. Defaults: \`start\` 0; \`count\` 50 (1 to 1000). Numbers are digits without '+', as in message listings.`;

const NUMBERS_PROVISION_DESCRIPTION = `Provisions a telephone number to the account: from then on the account can send from it and receives the
texts sent to it. The number must be a valid E.164 number (digits with country code, '+' optional).

**Idempotent.** Provisioning a number the account holds already answers it as it is, with \`created\` false; nothing changes (the
label and rate are changed in the portal or with \`parley number update\`). A number held by another account is refused
(InvalidRequest, field \`number\`); the answer never says which account holds it.

**Rate.** \`ratePerSecond\` (default ${NUMBER_LIMITS.defaultRatePerSecond}, above 0 and at most ${NUMBER_LIMITS.maxRatePerSecond}) paces the messages leaving this
number; the account's own limit still caps the sum of its numbers. Unknown fields are ignored.

**Check order.** Credentials (401) → JSON present (MissingJSON) → JSON parses (InvalidJSON) → body is an object (InvalidRequest) →
accountId (MissingAccountId) → fields (InvalidRequest, naming the field) → accountId is the credentials' account (403 Forbidden) →
the number is free or already the account's (InvalidRequest).`;

const NUMBERS_RELEASE_DESCRIPTION = `Releases one of the account's numbers. From then on a send from it is refused (200, every entry rejected,
reason FromNotOwned) and texts sent to it are not received. The number may be given with or without '+' (\`%2B\`).

**Queued messages.** Messages still queued to be sent from the number would never leave: they are cancelled, as a send from the
released number would be refused (status \`rejected\`, reason FromNotOwned, with a \`rejected\` SDR), and \`data.cancelledMessages\`
says how many. A message whose parts are being handed to the carrier at that moment is let finish: the release is refused
(InvalidRequest) for the few seconds that takes, and nothing is cancelled.

A number the account does not hold, whether another account holds it or nobody does, is 404 NotFound.`;

export function registerNumbers(registry: OpenAPIRegistry, errorResponses: ErrorResponses): void {
  const numberResult = registry.register("NumberResult", documented(numberResultSchema));

  const numbersListResponse = registry.register(
    "NumbersListResponse",
    queryAnswer(numbersPageSchema, { numbers: z.array(numberResult) }, { echoesQuery: true }),
  );

  const { accountId, created } = provisionedNumberSchema.shape;
  const numberProvisionResponse = registry.register(
    "NumberProvisionResponse",
    z.object({ ...envelopeOf("UpdateSuccessful"), data: numberResult.extend({ apiVersion, accountId, created }) }),
  );

  const numberReleaseResponse = registry.register(
    "NumberReleaseResponse",
    z.object({ ...envelopeOf("UpdateSuccessful"), data: withData(releasedNumberSchema) }),
  );

  const exampleNumber = {
    number: "14155550100",
    label: "Support line",
    ratePerSecond: 1,
    carrier: null,
    createdAt: "2026-11-21 22:52:12.123 UTC",
  };
  const updated = {
    status: "UpdateSuccessful",
    statusCode: 200,
    statusMessage: successCodes.UpdateSuccessful.statusMessage,
    statusUri: "",
  } as const;

  registry.registerPath({
    method: "get",
    path: "/numbers",
    operationId: "listNumbers",
    tags: ["Numbers"],
    summary: "List the account's telephone numbers",
    description: NUMBERS_LIST_DESCRIPTION,
    request: { query: numbersQuerySchema },
    responses: {
      200: {
        description: "Query Completed Successfully",
        headers: requestIdHeader,
        content: {
          "application/json": {
            schema: numbersListResponse,
            example: {
              status: "QueryCompletedSuccessfully",
              statusCode: 200,
              statusMessage: "Query Completed Successfully",
              statusUri: "",
              data: {
                accountId: EXAMPLE_ACCOUNT,
                apiVersion: "v3",
                total: 2,
                position: 0,
                numbers: [
                  exampleNumber,
                  { ...exampleNumber, number: "14155550101", label: "", ratePerSecond: 2, carrier: "twilio-main" },
                ],
              },
            },
          },
        },
      },
      ...errorResponses("GET", ["MissingAccountId", "InvalidRequest", "Unauthorized", "Forbidden", "SystemFailure"]),
    },
  });

  registry.registerPath({
    method: "post",
    path: "/numbers",
    operationId: "provisionNumber",
    tags: ["Numbers"],
    summary: "Provision a telephone number to the account",
    description: NUMBERS_PROVISION_DESCRIPTION,
    request: {
      body: {
        required: true,
        content: {
          "application/json": {
            schema: registry.register(
              "ProvisionNumberRequest",
              provisionRequestSchema.clone().openapi({ description: "Unknown fields are ignored." }),
            ),
          },
        },
      },
    },
    responses: {
      200: {
        description: "Update Successful: the number is the account's (provisioned now, or held already).",
        headers: requestIdHeader,
        content: {
          "application/json": {
            schema: numberProvisionResponse,
            examples: {
              created: {
                summary: "Provisioned now",
                value: {
                  ...updated,
                  data: { accountId: EXAMPLE_ACCOUNT, ...exampleNumber, created: true, apiVersion: "v3" },
                },
              },
              held: {
                summary: "The account held it already (nothing changed)",
                value: {
                  ...updated,
                  data: { accountId: EXAMPLE_ACCOUNT, ...exampleNumber, created: false, apiVersion: "v3" },
                },
              },
            },
          },
        },
      },
      ...errorResponses("POST", [
        "MissingJSON",
        "InvalidJSON",
        "InvalidRequest",
        "MissingAccountId",
        "Unauthorized",
        "Forbidden",
        "SystemFailure",
      ]),
    },
  });

  registry.registerPath({
    method: "delete",
    path: "/numbers/{number}",
    operationId: "releaseNumber",
    tags: ["Numbers"],
    summary: "Release one of the account's numbers",
    description: NUMBERS_RELEASE_DESCRIPTION,
    request: {
      params: z.object({
        number: z.string().openapi({
          description: "The number to release: digits with country code, '+' optional.",
          example: "14155550100",
        }),
      }),
      query: releaseQuerySchema,
    },
    responses: {
      200: {
        description: "Update Successful: the number is released.",
        headers: requestIdHeader,
        content: {
          "application/json": {
            schema: numberReleaseResponse,
            example: {
              ...updated,
              data: {
                accountId: EXAMPLE_ACCOUNT,
                number: "14155550100",
                cancelledMessages: 0,
                released: true,
                apiVersion: "v3",
              },
            },
          },
        },
      },
      ...errorResponses("DELETE", [
        "MissingAccountId",
        "InvalidRequest",
        "Unauthorized",
        "Forbidden",
        "NotFound",
        "SystemFailure",
      ]),
    },
  });
}
