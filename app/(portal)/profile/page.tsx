import { requireSignedIn } from "@/components/portal/require-user";
import { PageHeader } from "@/components/ui/page-header";
import { TwoFactorPanel } from "@/components/profile/two-factor-panel";
import { twoFactorStatus } from "@/lib/auth/two-factor-enrolment";

export const metadata = { title: "Profile · Parley" };

// requireSignedIn, not requireUser: a user the account requires two-factor of sets it up here. The key itself is
// never in this page's HTML: the panel asks for it when the user presses "Set up two-factor".
export default async function Page() {
  const user = await requireSignedIn();
  const twoFactor = await twoFactorStatus(user);
  return (
    <>
      <PageHeader title="Profile" description={`Signed in as ${user.email}.`} />
      <div className="space-y-6">
        <TwoFactorPanel initial={twoFactor} />
      </div>
    </>
  );
}
