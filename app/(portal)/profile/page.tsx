import { requireSignedIn } from "@/app/(portal)/require-user";
import { PageHeader } from "@/components/ui/page-header";
import { ChangePasswordForm } from "@/components/profile/change-password-form";
import { TwoFactorPanel } from "@/components/profile/two-factor-panel";
import { YourSessions } from "@/components/profile/your-sessions";
import { listUserSessions } from "@/lib/auth/list-sessions";
import { twoFactorStatus } from "@/lib/auth/two-factor-enrolment";

export const metadata = { title: "Profile · Parley" };

// requireSignedIn, not requireUser: a user the account requires two-factor of sets it up here. The two-factor key
// is never in this page's HTML: the panel asks for it when the user presses "Set up two-factor".
export default async function Page() {
  const user = await requireSignedIn();
  const [twoFactor, sessions] = await Promise.all([
    twoFactorStatus(user),
    listUserSessions({ accountId: user.accountId, userId: user.id, currentSessionId: user.sessionId }),
  ]);
  return (
    <>
      <PageHeader title="Profile" description={`Your sign-in to this portal as ${user.email}.`} />
      <div className="space-y-6">
        <TwoFactorPanel initial={twoFactor} />
        <ChangePasswordForm />
        <YourSessions initial={sessions} />
      </div>
    </>
  );
}
