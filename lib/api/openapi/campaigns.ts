import { z } from "zod";
import type { OpenAPIRegistry } from "@asteasolutions/zod-to-openapi";
import { campaignInputSchema } from "../../campaigns/campaign-schema";
import { DOC_EXAMPLES } from "../../messaging/message-serializers";
import type { ErrorResponses } from "./errors";
import { apiVersion, envelopeOf, requestIdHeader } from "./shared";

// /v3/campaigns in the OpenAPI document (lib/campaigns, docs/CAMPAIGNS.md).

const counts = z.object(
  Object.fromEntries(
    ["scheduled", "held", "queued", "sent", "delivered", "failed", "optedOut", "refused", "cancelled", "replied"].map(
      (k) => [k, z.number().int()],
    ),
  ),
);

const campaign = z.object({
  id: z.string(),
  name: z.string(),
  status: z.enum(["scheduled", "running", "paused", "finished", "cancelled"]),
  body: z.string().openapi({ description: "The text as written, with its variables." }),
  fromNumbers: z.array(z.string()),
  audience: z.union([z.object({ tag: z.string() }), z.object({ numbers: z.array(z.string()) })]),
  sendAt: z.string().nullable(),
  createdAt: z.string(),
  createdBy: z.string(),
  recipients: z.number().int().openapi({ description: "Phones it was meant for, one message each." }),
  done: z.number().int().openapi({ description: "Messages with an outcome (delivered, failed, left out, cancelled)." }),
  counts: counts.openapi({ description: "What the campaign's messages did; `replied`: phones that wrote back." }),
});

export function registerCampaigns(registry: OpenAPIRegistry, errorResponses: ErrorResponses): void {
  const view = registry.register("Campaign", campaign);
  const answer = (name: string, code: "MessageCreateSuccessful" | "QueryCompletedSuccessfully" | "UpdateSuccessful") =>
    registry.register(
      name,
      z.object({ ...envelopeOf(code), data: z.object({ apiVersion, accountId: z.string(), campaign: view }) }),
    );
  const created = answer("CampaignCreateResponse", "MessageCreateSuccessful");
  const one = answer("CampaignResponse", "QueryCompletedSuccessfully");
  const changed = answer("CampaignUpdateResponse", "UpdateSuccessful");
  const json = (schema: z.ZodType, description: string) => ({
    description,
    headers: requestIdHeader,
    content: { "application/json": { schema } },
  });
  registry.registerPath({
    method: "post",
    path: "/campaigns",
    operationId: "createCampaign",
    tags: ["Campaigns"],
    summary: "Send one text to contacts with a tag, or to a list of numbers",
    description:
      "Bulk messages from `fromNumbers` in turn, one a phone, every one stored before the answer; opted-out phones are left out and counted. Variables: {{contact.name}}, {{contact.first_name}}, {{account.number}}. `sendAt` as a send's. See docs/CAMPAIGNS.md.",
    request: {
      body: {
        required: true,
        content: {
          "application/json": {
            schema: registry.register(
              "CampaignRequest",
              campaignInputSchema
                .extend({ accountId: z.string().openapi({ example: DOC_EXAMPLES.accountId }) })
                .openapi({
                  example: {
                    accountId: DOC_EXAMPLES.accountId,
                    name: "Spring sale",
                    fromNumbers: ["14155550100"],
                    body: "Hi {{contact.first_name}}!",
                    audience: { tag: "vip" },
                  },
                }),
            ),
          },
        },
      },
    },
    responses: {
      200: json(created, "Message Create Successful: the campaign, with its first counts."),
      ...errorResponses("POST", [
        "MissingAccountId",
        "InvalidRequest",
        "Unauthorized",
        "Forbidden",
        "DailyLimitReached",
      ]),
    },
  });
  registry.registerPath({
    method: "get",
    path: "/campaigns",
    operationId: "listCampaigns",
    tags: ["Campaigns"],
    summary: "The account's campaigns, newest first",
    request: { query: z.object({ accountId: z.string().openapi({ example: DOC_EXAMPLES.accountId }) }) },
    responses: {
      200: json(
        registry.register(
          "CampaignListResponse",
          z.object({
            ...envelopeOf("QueryCompletedSuccessfully"),
            data: z.object({ apiVersion, accountId: z.string(), campaigns: z.array(view) }),
          }),
        ),
        "Query Completed Successfully",
      ),
      ...errorResponses("GET", ["MissingAccountId", "InvalidRequest", "Unauthorized", "Forbidden"]),
    },
  });
  const id = z.object({ campaignId: z.string().openapi({ description: "The campaign's id." }) });
  registry.registerPath({
    method: "get",
    path: "/campaigns/{campaignId}",
    operationId: "getCampaign",
    tags: ["Campaigns"],
    summary: "One campaign and what its messages did",
    request: { params: id },
    responses: {
      200: json(one, "Query Completed Successfully"),
      ...errorResponses("GET", ["Unauthorized", "NotFound"]),
    },
  });
  for (const action of ["pause", "resume", "cancel"] as const) {
    registry.registerPath({
      method: "post",
      path: `/campaigns/{campaignId}/${action}`,
      operationId: `${action}Campaign`,
      tags: ["Campaigns"],
      summary:
        action === "pause"
          ? "Hold the messages not yet handed to the carrier"
          : action === "resume"
            ? "Give held messages back to the queue (or to the campaign's time)"
            : "Cancel every message not yet handed to the carrier",
      request: { params: id },
      responses: {
        200: json(changed, "Update Successful"),
        ...errorResponses("POST", ["InvalidRequest", "Unauthorized", "NotFound"]),
      },
    });
  }
}
