import { requireAdmin } from "@/app/(portal)/require-user";
import { PageHeader } from "@/components/ui/page-header";
import { KeysScreen } from "@/components/keys/keys-screen";
import { KEY_PAGE_SIZE } from "@/components/keys/key-types";
import { listApiKeyPage } from "@/lib/accounts/manage-accounts";

export const metadata = { title: "API keys · Parley" };

export default async function Page() {
  const user = await requireAdmin();
  const initial = await listApiKeyPage({ accountId: user.accountId, start: 0, count: KEY_PAGE_SIZE });
  return (
    <>
      <PageHeader
        title="API keys"
        description="Programs call the v3 API with a key in the apikey header. A key's secret is shown once, when it is created; revoke a key that is lost or no longer used."
      />
      <KeysScreen initial={initial} />
    </>
  );
}
