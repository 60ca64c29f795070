import { requireAdmin } from "@/app/(portal)/require-user";
import { OptOutsScreen } from "@/components/opt-outs/opt-outs-screen";
import { OPTED_OUT_PAGE, TRAIL_PAGE } from "@/components/opt-outs/trail-query";
import { PageHeader } from "@/components/ui/page-header";
import { listOptEvents, listOptStates } from "@/lib/opt/manage-opt";
import { getOptSettings } from "@/lib/opt/opt-settings";

export const metadata = { title: "Opt-outs · Parley" };

export default async function Page() {
  const user = await requireAdmin();
  const [trail, optedOut, settings] = await Promise.all([
    listOptEvents({ accountId: user.accountId, start: 0, count: TRAIL_PAGE }),
    listOptStates({ accountId: user.accountId, status: "out", start: 0, count: OPTED_OUT_PAGE }),
    getOptSettings(user.accountId),
  ]);
  return (
    <>
      <PageHeader
        title="Opt-outs"
        description="Phones that texted STOP are never messaged again by this account until they text START. Every change is in the audit trail."
      />
      <OptOutsScreen trail={trail} optedOut={optedOut} settings={settings} />
    </>
  );
}
