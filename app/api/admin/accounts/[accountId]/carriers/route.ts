import { withAdmin, adminResult } from "@/lib/api/with-admin";
import { readJson } from "@/lib/api/read-json";
import { actorLabel } from "@/lib/audit/audit-trail";
import { createConnection, listConnections } from "@/lib/carriers/connections/manage-connections";
import { fieldsOf, objectBody } from "@/lib/carriers/connections/connection-body";

export const dynamic = "force-dynamic";

// GET /api/admin/accounts/{accountId}/carriers: the account's carrier connections (secrets masked).
export const GET = withAdmin(async ({ accountId }) => adminResult({ carriers: await listConnections(accountId) }));

// POST /api/admin/accounts/{accountId}/carriers: add {type, name, enabled?, fields: {…the kind's fields}}.
export const POST = withAdmin(async ({ req, accountId, actor, ip }) => {
  const body = objectBody(await readJson(req));
  const carrier = await createConnection({
    accountId,
    type: body.type,
    name: body.name,
    enabled: body.enabled === undefined ? undefined : body.enabled === true,
    values: fieldsOf(body),
    actor: actorLabel(actor),
    ip,
  });
  return adminResult({ carrier }, true);
});
