import { withApiKey, withoutAuth } from "@/lib/api/with-api-key";
import { readJson } from "@/lib/api/read-json";
import { successEnvelope } from "@/lib/api/envelope";
import { sendWithIdempotency } from "@/lib/messaging/send-with-idempotency";
import { toSendData } from "@/lib/messaging/message-serializers";
import { parseListQuery } from "@/lib/messaging/list-schema";
import { listMessages } from "@/lib/messaging/list-messages";

// POST /v3/messages: send SMS/MMS to one or many destinations. The envelope is also what an Idempotency-Key
// stores, so a repeat answers the same bytes.
export const POST = withApiKey(async ({ req, principal, requestId }) => {
  const raw = await readJson(req);
  return sendWithIdempotency({
    sender: { kind: "apiKey", ...principal },
    raw,
    requestId,
    headers: req.headers,
    answer: (result) => successEnvelope("MessageCreateSuccessful", toSendData(result)),
  });
});

// GET /v3/messages: list the account's messages with filters, paging and sorting.
export const GET = withApiKey(async ({ req, principal }) => {
  const query = parseListQuery(new URL(req.url).searchParams);
  return successEnvelope("QueryCompletedSuccessfully", await listMessages({ principal, query }));
});

// PUT, DELETE and PATCH /v3/messages: messages cannot be changed or removed.
export const PUT = withoutAuth("ResourceNotAllowed");
export const DELETE = withoutAuth("ResourceNotAllowed");
export const PATCH = withoutAuth("ResourceNotAllowed");
