import { withApiKey, withoutAuth } from "@/lib/api/with-api-key";
import { readJson } from "@/lib/api/read-json";
import { successEnvelope } from "@/lib/api/envelope";
import { previewSend } from "@/lib/messaging/preview-send";

// POST /v3/messages/preview: a send's body as it would leave, its segments and each destination's fate; nothing
// is sent or stored.
export const POST = withApiKey(async ({ req, principal }) =>
  successEnvelope("QueryCompletedSuccessfully", {
    ...(await previewSend({ principal, raw: await readJson(req) })),
  }),
);

export const GET = withoutAuth("ResourceNotAllowed");
export const PUT = withoutAuth("ResourceNotAllowed");
export const DELETE = withoutAuth("ResourceNotAllowed");
export const PATCH = withoutAuth("ResourceNotAllowed");
