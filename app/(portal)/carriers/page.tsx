import { requireAdmin } from "@/app/(portal)/require-user";
import { CarriersScreen } from "@/components/carriers/carriers-screen";
import { PageHeader } from "@/components/ui/page-header";
import { listConnections } from "@/lib/carriers/connections/manage-connections";
import { env } from "@/lib/env";

export const metadata = { title: "Carriers · Parley" };

// /carriers (admins): the account's own carrier connections; add, test, change and remove them. Secrets never
// reach the page: the connections' views carry masked hints only.
export default async function Page() {
  const user = await requireAdmin();
  const connections = await listConnections(user.accountId);
  return (
    <>
      <PageHeader
        title="Carriers"
        description="Connections to the networks your numbers send and receive through: your own provider accounts or SMPP links."
      />
      <CarriersScreen initial={connections} defaultCarrier={env().CARRIER} />
    </>
  );
}
