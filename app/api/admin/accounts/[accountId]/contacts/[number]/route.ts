import { withAdmin, adminResult } from "@/lib/api/with-admin";
import { readJson } from "@/lib/api/read-json";
import { actorLabel } from "@/lib/audit/audit-trail";
import { deleteContact, getContact, parseContactInput, saveContact } from "@/lib/contacts/manage-contacts";

export const dynamic = "force-dynamic";

const numberOf = (params: Record<string, string | string[] | undefined>) => String(params.number ?? "");

// GET /api/admin/accounts/{accountId}/contacts/{number}: one number as a contact (unnamed when nobody saved it).
export const GET = withAdmin(
  async ({ accountId, params }) => adminResult({ contact: await getContact({ accountId, number: numberOf(params) }) }),
  { agents: true },
);

// PUT /api/admin/accounts/{accountId}/contacts/{number}: saves name, email, company, tags and note (those sent).
export const PUT = withAdmin(
  async ({ req, accountId, params, actor, ip }) => {
    const fields = parseContactInput(await readJson(req));
    const audit = { actor: actorLabel(actor), ip };
    return adminResult({ contact: await saveContact({ accountId, number: numberOf(params), fields, audit }) }, true);
  },
  { agents: true },
);

// DELETE /api/admin/accounts/{accountId}/contacts/{number}: forgets what was saved; the number stays, unnamed.
export const DELETE = withAdmin(
  async ({ accountId, params, actor, ip }) =>
    adminResult(
      await deleteContact({ accountId, number: numberOf(params), audit: { actor: actorLabel(actor), ip } }),
      true,
    ),
  { agents: true },
);
