import { withAdmin, adminResult } from "@/lib/api/with-admin";
import { actorLabel } from "@/lib/audit/audit-trail";
import { testConnection } from "@/lib/carriers/connections/test-connection";

export const dynamic = "force-dynamic";

// POST …/carriers/{carrierId}/test: ask the provider's account or balance endpoint; {ok, words}.
export const POST = withAdmin(async ({ accountId, actor, ip, params }) =>
  adminResult(await testConnection({ accountId, idOrName: String(params.carrierId), actor: actorLabel(actor), ip })),
);
