import { withApiKey, withoutAuth } from "@/lib/api/with-api-key";
import { successEnvelope } from "@/lib/api/envelope";
import { cancelMessage } from "@/lib/messaging/cancel-message";

// POST /v3/messages/{messageId}/cancel: cancels a message of the key's account that has not left yet (no body).
export const POST = withApiKey(async ({ principal, params }) => {
  const result = await cancelMessage({
    accountId: principal.accountId,
    messageId: String(params.messageId),
    by: "the API",
  });
  return successEnvelope("UpdateSuccessful", { ...result });
});

export const GET = withoutAuth("ResourceNotAllowed");
export const PUT = withoutAuth("ResourceNotAllowed");
export const DELETE = withoutAuth("ResourceNotAllowed");
export const PATCH = withoutAuth("ResourceNotAllowed");
