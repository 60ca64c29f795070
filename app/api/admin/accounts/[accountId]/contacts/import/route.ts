import { withAdmin, adminResult } from "@/lib/api/with-admin";
import { readJson } from "@/lib/api/read-json";
import { actorLabel } from "@/lib/audit/audit-trail";
import { importContactsCsv } from "@/lib/contacts/contact-csv";

export const dynamic = "force-dynamic";

// POST /api/admin/accounts/{accountId}/contacts/import: a CSV file ({csv}: its text; header name,phone,email,tags)
// of contacts; answers how many were created, updated and unchanged, and each bad row's line number.
export const POST = withAdmin(
  async ({ req, accountId, actor, ip }) =>
    adminResult(
      await importContactsCsv({ accountId, body: await readJson(req), audit: { actor: actorLabel(actor), ip } }),
      true,
    ),
  { agents: true },
);
