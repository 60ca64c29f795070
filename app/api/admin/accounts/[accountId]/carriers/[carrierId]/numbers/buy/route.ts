import { withAdmin, adminResult } from "@/lib/api/with-admin";
import { readJson } from "@/lib/api/read-json";
import { actorLabel } from "@/lib/audit/audit-trail";
import { buyProviderNumber } from "@/lib/carriers/connections/provider-numbers";
import { objectBody } from "@/lib/carriers/connections/connection-body";

export const dynamic = "force-dynamic";

// POST …/carriers/{carrierId}/numbers/buy: buy {number} at the provider, routed here and provisioned.
export const POST = withAdmin(async ({ req, accountId, actor, ip, params }) => {
  const body = objectBody(await readJson(req));
  const number = await buyProviderNumber({
    accountId,
    idOrName: String(params.carrierId),
    number: typeof body.number === "string" ? body.number : "",
    actor: actorLabel(actor),
    ip,
  });
  return adminResult({ number: { ...number, createdAt: number.createdAt.toISOString() } }, true);
});
