import { OpenAPIRegistry, OpenApiGeneratorV31 } from "@asteasolutions/zod-to-openapi";
import { publicUrl } from "../env";
import { errorCodeDocs, registerErrors } from "./openapi/errors";
import { registerMessages } from "./openapi/messages";
import { registerNumbers } from "./openapi/numbers";
import { registerSdrs } from "./openapi/sdrs";
import { registerMedia } from "./openapi/media";
import { registerCampaigns } from "./openapi/campaigns";

// The OpenAPI 3.1 description of /v3, put together from one part per resource (lib/api/openapi/), each generated
// from the zod schemas the handlers validate with and the serializers answer with (convention 5). The /docs page
// renders from the same document.

export type OpenApiDocument = ReturnType<OpenApiGeneratorV31["generateDocument"]>;

const INFO_DESCRIPTION = `Send SMS and MMS, upload media for MMS, list messages, read the session detail records (SDRs) of a message, and
provision and release the account's telephone numbers.
Human-readable reference with examples: [/docs](/docs).

**Envelope.** Every response is JSON with \`status\` (alpha code), \`statusCode\` (a number, always equal to the HTTP status),
\`statusMessage\`, \`statusUri\` (a link to the code's entry under /docs#error-<Code>, or "" on success) and, where there is one,
\`data\`, whose \`apiVersion\` is always "v3". Every response carries an \`x-request-id\` header.

**Authentication.** Header \`apikey: <key>\`, or HTTP Basic with the account's UUID as username and a key of that account as
password. Either is enough; when both are sent both must be valid for the same account. Keys look like \`pk_\` + 32 letters
and digits, belong to one account, are shown once at creation, and can be revoked or given an expiry.

**Telephone numbers (TNs).** Requests accept digits with country code, with or without a leading '+' (\`14155550100\`,
\`+14155550100\`). Send responses show \`+14155550100\`; listing results and webhook payloads show \`14155550100\`.
A number is valid when it is a valid E.164 number for its country.

**Timestamps.** \`dateCreated\` in send responses: \`2026-11-21T22:52:12.123+0000\`. \`timestamp\` in listings and SDRs:
\`2026-11-21 22:52:12.123 UTC\`. SDR \`delta\`: seconds since acceptance, three decimals, at least two digits before the point
(\`"07.250"\`). Listing filters take ISO 8601 (date or date-time, any offset) or \`YYYY-MM-DD HH:mm:ss.SSS\` (UTC).

**Errors.** Each code's statusCode and statusMessage are listed under \`x-error-codes\` and at /docs#errors.`;

function buildDocument(): OpenApiDocument {
  const registry = new OpenAPIRegistry();
  registry.registerComponent("securitySchemes", "apikey", {
    type: "apiKey",
    in: "header",
    name: "apikey",
    description:
      "An API key of the account (`pk_` + 32 letters and digits), created in the portal or with `npm run parley -- key create --account <accountId>`.",
  });
  registry.registerComponent("securitySchemes", "basic", {
    type: "http",
    scheme: "basic",
    description: "Username: the account's UUID (accountId). Password: an API key of that account.",
  });
  const errorResponses = registerErrors(registry);
  registerMessages(registry, errorResponses);
  registerSdrs(registry, errorResponses);
  registerNumbers(registry, errorResponses);
  registerMedia(registry, errorResponses);
  registerCampaigns(registry, errorResponses);

  const generator = new OpenApiGeneratorV31(registry.definitions);
  return generator.generateDocument({
    openapi: "3.1.0",
    info: {
      title: "Parley messaging API",
      version: "v3",
      description: INFO_DESCRIPTION,
    },
    servers: [{ url: `${publicUrl()}/v3`, description: "This Parley server" }],
    security: [{ apikey: [] }, { basic: [] }],
    tags: [
      { name: "Messages", description: "Send, list; PUT and DELETE are not allowed." },
      { name: "SDRs", description: "Session detail records: the processing history of one message." },
      { name: "Numbers", description: "The account's telephone numbers: list, provision, release." },
      { name: "Media", description: "Upload media for MMS; they are served under /media/." },
      { name: "Campaigns", description: "One text to many phones, sent as bulk; pause, resume, cancel." },
    ],
    externalDocs: { description: "API reference with examples", url: `${publicUrl()}/docs` },
    "x-error-codes": errorCodeDocs(),
  });
}

let cached: OpenApiDocument | undefined;

/** The OpenAPI 3.1 document of /v3, built once per process (the server's public URL is fixed at start-up). */
export function buildOpenApiDocument(): OpenApiDocument {
  cached ??= buildDocument();
  return cached;
}
