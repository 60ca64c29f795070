import { withApiKey, withoutAuth } from "@/lib/api/with-api-key";
import { successEnvelope } from "@/lib/api/envelope";
import { releaseNumberV3 } from "@/lib/numbers/v3-numbers";

// DELETE /v3/numbers/{number}?accountId=: release one of the account's numbers.
export const DELETE = withApiKey(async ({ req, principal, params }) =>
  successEnvelope(
    "UpdateSuccessful",
    await releaseNumberV3({ principal, number: String(params.number), params: new URL(req.url).searchParams }),
  ),
);

export const GET = withoutAuth("ResourceNotAllowed");
export const POST = withoutAuth("ResourceNotAllowed");
export const PUT = withoutAuth("ResourceNotAllowed");
export const PATCH = withoutAuth("ResourceNotAllowed");
