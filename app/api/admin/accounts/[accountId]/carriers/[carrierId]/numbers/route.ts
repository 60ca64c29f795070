import { withAdmin, adminResult } from "@/lib/api/with-admin";
import { readJson } from "@/lib/api/read-json";
import { actorLabel } from "@/lib/audit/audit-trail";
import { importProviderNumbers, listProviderNumbers } from "@/lib/carriers/connections/provider-numbers";
import { objectBody } from "@/lib/carriers/connections/connection-body";
import { ApiError } from "@/lib/api/api-error";

export const dynamic = "force-dynamic";

// GET …/carriers/{carrierId}/numbers: the numbers the provider account holds, each available, imported or elsewhere.
export const GET = withAdmin(async ({ accountId, params }) =>
  adminResult({ numbers: await listProviderNumbers(accountId, String(params.carrierId)) }),
);

// POST …/carriers/{carrierId}/numbers: import {numbers?: ["+E164"…]} (all available without), routed here.
export const POST = withAdmin(async ({ req, accountId, actor, ip, params }) => {
  const body = objectBody(await readJson(req));
  const numbers = body.numbers;
  if (
    numbers !== undefined &&
    (!Array.isArray(numbers) || numbers.some((n) => typeof n !== "string") || numbers.length > 1000)
  )
    throw new ApiError("InvalidRequest", {
      detail: "numbers is a list of at most 1000 telephone numbers",
      field: "numbers",
    });
  const result = await importProviderNumbers({
    accountId,
    idOrName: String(params.carrierId),
    numbers: numbers as string[] | undefined,
    actor: actorLabel(actor),
    ip,
  });
  return adminResult(result, true);
});
