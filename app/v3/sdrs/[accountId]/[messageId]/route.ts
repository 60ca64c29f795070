import { withApiKey, withoutAuth } from "@/lib/api/with-api-key";
import { successEnvelope } from "@/lib/api/envelope";
import { getSdrs } from "@/lib/messaging/get-sdrs";

// GET /v3/sdrs/{accountId}/{messageId}: the status records of one message.
export const GET = withApiKey(async ({ principal, params }) =>
  successEnvelope(
    "QueryCompletedSuccessfully",
    await getSdrs({ principal, accountId: String(params.accountId), messageId: String(params.messageId) }),
  ),
);

export const POST = withoutAuth("ResourceNotAllowed");
export const PUT = withoutAuth("ResourceNotAllowed");
export const DELETE = withoutAuth("ResourceNotAllowed");
export const PATCH = withoutAuth("ResourceNotAllowed");
