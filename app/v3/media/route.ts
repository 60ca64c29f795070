import { withApiKeyOrSession } from "@/lib/api/with-api-key-or-session";
import { withoutAuth } from "@/lib/api/with-api-key";
import { successEnvelope } from "@/lib/api/envelope";
import { ApiError } from "@/lib/api/api-error";
import { receiveUpload } from "@/lib/media/receive-upload";

// POST /v3/media?accountId=…: upload one medium (multipart field `file`) and get its URL for a send's `media`.
export const POST = withApiKeyOrSession(async ({ req, accountId }) => {
  const named = new URL(req.url).searchParams.get("accountId");
  if (!named) throw new ApiError("MissingAccountId");
  if (named !== accountId) throw new ApiError("Forbidden");
  const stored = await receiveUpload({
    accountId,
    body: req.body,
    contentType: req.headers.get("content-type"),
    contentLength: req.headers.get("content-length"),
  });
  return successEnvelope("MediaUploadSuccessful", {
    mediaId: stored.mediaId,
    url: stored.url,
    contentType: stored.contentType,
    size: stored.size,
  });
});

// Media are kept with the messages that carry them; they are not listed, changed or removed through the API.
export const GET = withoutAuth("ResourceNotAllowed");
export const PUT = withoutAuth("ResourceNotAllowed");
export const DELETE = withoutAuth("ResourceNotAllowed");
export const PATCH = withoutAuth("ResourceNotAllowed");
