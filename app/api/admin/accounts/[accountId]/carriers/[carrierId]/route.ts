import { withAdmin, adminResult } from "@/lib/api/with-admin";
import { readJson } from "@/lib/api/read-json";
import { actorLabel } from "@/lib/audit/audit-trail";
import { getConnection, removeConnection, updateConnection } from "@/lib/carriers/connections/manage-connections";
import { fieldsOf, objectBody } from "@/lib/carriers/connections/connection-body";

export const dynamic = "force-dynamic";

// GET /api/admin/accounts/{accountId}/carriers/{carrierId}: one connection (by id or name; secrets masked).
export const GET = withAdmin(async ({ accountId, params }) =>
  adminResult({ carrier: await getConnection(accountId, String(params.carrierId)) }),
);

// PATCH …/carriers/{carrierId}: change {name?, enabled?, fields?}; a secret left out or empty keeps its saved value.
export const PATCH = withAdmin(async ({ req, accountId, actor, ip, params }) => {
  const body = objectBody(await readJson(req));
  const carrier = await updateConnection({
    accountId,
    idOrName: String(params.carrierId),
    name: body.name,
    enabled: body.enabled,
    values: fieldsOf(body),
    actor: actorLabel(actor),
    ip,
  });
  return adminResult({ carrier }, true);
});

// DELETE …/carriers/{carrierId}: remove a connection no number is routed to.
export const DELETE = withAdmin(async ({ accountId, actor, ip, params }) => {
  const carrier = await removeConnection({
    accountId,
    idOrName: String(params.carrierId),
    actor: actorLabel(actor),
    ip,
  });
  return adminResult({ id: carrier.id, name: carrier.name, removed: true }, true);
});
