import { withAdmin } from "@/lib/api/with-admin";
import { exportContactsCsv } from "@/lib/contacts/contact-csv";

export const dynamic = "force-dynamic";

// GET /api/admin/accounts/{accountId}/contacts/export: every saved contact as a CSV download (name,phone,email,tags).
export const GET = withAdmin(
  async ({ accountId }) =>
    new Response(await exportContactsCsv(accountId), {
      headers: {
        "content-type": "text/csv; charset=utf-8",
        "content-disposition": `attachment; filename="contacts.csv"`,
        "cache-control": "no-store",
      },
    }),
  { agents: true },
);
