import { withAdmin, adminResult } from "@/lib/api/with-admin";
import { queryObject } from "@/lib/api/parse-input";
import { listContacts } from "@/lib/contacts/manage-contacts";

export const dynamic = "force-dynamic";

// GET /api/admin/accounts/{accountId}/contacts: the account's contacts (saved ones and every number it has a
// conversation with), named first; q searches name, number, e-mail, company and tags; start and count page.
export const GET = withAdmin(
  async ({ req, accountId }) => adminResult(await listContacts({ accountId, query: queryObject(req) })),
  {
    agents: true,
  },
);
