import { withApiKey, withoutAuth } from "@/lib/api/with-api-key";
import { readJson } from "@/lib/api/read-json";
import { successEnvelope } from "@/lib/api/envelope";
import { listNumbersV3, provisionNumberV3 } from "@/lib/numbers/v3-numbers";

// GET /v3/numbers: one page of the account's numbers.
export const GET = withApiKey(async ({ req, principal }) =>
  successEnvelope(
    "QueryCompletedSuccessfully",
    await listNumbersV3({ principal, params: new URL(req.url).searchParams }),
  ),
);

// POST /v3/numbers: provision a number to the account ({accountId, number, label?, ratePerSecond?}).
export const POST = withApiKey(async ({ req, principal }) =>
  successEnvelope("UpdateSuccessful", await provisionNumberV3({ principal, raw: await readJson(req) })),
);

// PUT, DELETE and PATCH /v3/numbers: a number is released at /v3/numbers/{number}.
export const PUT = withoutAuth("ResourceNotAllowed");
export const DELETE = withoutAuth("ResourceNotAllowed");
export const PATCH = withoutAuth("ResourceNotAllowed");
