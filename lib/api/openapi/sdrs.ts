import { z } from "zod";
import type { OpenAPIRegistry } from "@asteasolutions/zod-to-openapi";
import { SDR_STATUSES, sdrListingSchema, sdrRecordSchema } from "../../messaging/get-sdrs";
import { DOC_EXAMPLES, uuidField as uuid } from "../../messaging/message-serializers";
import { errorCodes } from "../error-codes";
import type { ErrorResponses } from "./errors";
import { apiVersion, documented, queryAnswer, requestIdHeader } from "./shared";

// GET /v3/sdrs/{accountId}/{messageId} in the OpenAPI document: the record schema is the serializer's
// (lib/messaging/get-sdrs.ts); a missing message has the seed's SDR error shape.

const EXAMPLE_ACCOUNT = DOC_EXAMPLES.accountId;
const EXAMPLE_MESSAGE = DOC_EXAMPLES.messageId;

const SDR_DESCRIPTION = `The status records of one message, in time order. Status vocabulary, in lifecycle order: ${SDR_STATUSES.map((s) => s.status).join(", ")}
(one outcome of delivered, undelivered, failed, expired, rejected; \`retry\` only when a carrier submit is retried).
\`segmentNumber\` appears on records about one segment (submit, DLR); \`referenceId\` on the \`accepted\` record and on DLR records.
A message that does not exist, or belongs to another account, is 404 MessageNotFound.`;

export function registerSdrs(registry: OpenAPIRegistry, errorResponses: ErrorResponses): void {
  const sdrRecord = registry.register("SdrRecord", documented(sdrRecordSchema));

  const sdrResponse = registry.register(
    "SdrResponse",
    queryAnswer(sdrListingSchema, {
      results: z.array(sdrRecord).openapi(sdrListingSchema.shape.results.meta() ?? {}),
    }),
  );

  const sdrNotFound = registry.register(
    "SdrNotFound",
    z.object({
      status: z.literal("MessageNotFound"),
      statusCode: z.literal(404),
      statusMessage: z.literal(errorCodes.MessageNotFound.statusMessage),
      statusUri: z.string().openapi({ format: "uri" }),
      data: z.object({
        apiVersion,
        results: z
          .object({
            error: z.literal("MessageNotFound"),
            errorCode: z.literal(404),
            errorMessage: z.literal(errorCodes.MessageNotFound.statusMessage),
            errorUrl: z.string().openapi({ format: "uri" }),
          })
          .openapi({ description: "The seed's SDR error shape." }),
      }),
    }),
  );

  registry.registerPath({
    method: "get",
    path: "/sdrs/{accountId}/{messageId}",
    operationId: "getSdrs",
    tags: ["SDRs"],
    summary: "Session detail records of one message",
    description: SDR_DESCRIPTION,
    request: {
      params: z.object({
        accountId: uuid("The message's account; must be the credentials' account.", EXAMPLE_ACCOUNT),
        messageId: uuid("A messageId from a send response or a listing.", EXAMPLE_MESSAGE),
      }),
    },
    responses: {
      200: {
        description: "Query Completed Successfully",
        headers: requestIdHeader,
        content: {
          "application/json": {
            schema: sdrResponse,
            example: {
              status: "QueryCompletedSuccessfully",
              statusCode: 200,
              statusMessage: "Query Completed Successfully",
              statusUri: "",
              data: {
                apiVersion: "v3",
                accountId: EXAMPLE_ACCOUNT,
                messageId: EXAMPLE_MESSAGE,
                results: [
                  {
                    delta: "00.000",
                    timestamp: "2026-11-21 22:52:12.123 UTC",
                    referenceId: "order42",
                    status: "accepted",
                    statusDetails: "",
                  },
                  { delta: "00.000", timestamp: "2026-11-21 22:52:12.123 UTC", status: "queued", statusDetails: "" },
                  { delta: "00.412", timestamp: "2026-11-21 22:52:12.535 UTC", status: "sending", statusDetails: "" },
                  {
                    delta: "00.530",
                    timestamp: "2026-11-21 22:52:12.653 UTC",
                    segmentNumber: 1,
                    status: "message_sent",
                    statusDetails: "",
                  },
                  { delta: "00.531", timestamp: "2026-11-21 22:52:12.654 UTC", status: "wait_dlr", statusDetails: "" },
                  {
                    delta: "07.250",
                    timestamp: "2026-11-21 22:52:19.373 UTC",
                    segmentNumber: 1,
                    referenceId: "order42",
                    status: "delivered",
                    statusDetails: "id:7f3a sub:001 dlvrd:001 stat:DELIVRD err:000",
                  },
                  {
                    delta: "07.251",
                    timestamp: "2026-11-21 22:52:19.374 UTC",
                    segmentNumber: 1,
                    referenceId: "order42",
                    status: "dlr_received",
                    statusDetails: "",
                  },
                  {
                    delta: "07.402",
                    timestamp: "2026-11-21 22:52:19.525 UTC",
                    status: "status_sent",
                    statusDetails: "",
                  },
                ],
              },
            },
          },
        },
      },
      ...errorResponses(
        "GET",
        ["InvalidRequest", "Unauthorized", "Forbidden", "MessageNotFound", "SystemFailure"],
        (code) => (code === "MessageNotFound" ? sdrNotFound : undefined),
      ),
    },
  });
}
