import { withAdmin, adminResult } from "@/lib/api/with-admin";
import { parseListQuery } from "@/lib/messaging/list-schema";
import { queryMessages } from "@/lib/messaging/list-messages";

export const dynamic = "force-dynamic";

// GET /api/admin/accounts/{accountId}/messages: the portal's message listing, with GET /v3/messages's filters,
// paging and sorting, validated by the same parser (so a bad filter gets the API's own words). Agents may read.
export const GET = withAdmin(
  async ({ req, accountId }) => {
    const params = new URL(req.url).searchParams;
    params.set("accountId", accountId);
    return adminResult({ ...(await queryMessages(parseListQuery(params))) });
  },
  { agents: true },
);
