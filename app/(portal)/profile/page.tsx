import { requireUser } from "@/components/portal/require-user";
import { PageHeader } from "@/components/ui/page-header";
import { ChangePasswordForm } from "@/components/profile/change-password-form";
import { YourSessions } from "@/components/profile/your-sessions";
import { listUserSessions } from "@/lib/auth/list-sessions";

export const metadata = { title: "Profile · Parley" };

export default async function Page() {
  const user = await requireUser();
  const sessions = await listUserSessions({
    accountId: user.accountId,
    userId: user.id,
    currentSessionId: user.sessionId,
  });
  return (
    <>
      <PageHeader title="Profile" description={`Your sign-in to this portal as ${user.email}.`} />
      <div className="space-y-6">
        <ChangePasswordForm />
        <YourSessions initial={sessions} />
      </div>
    </>
  );
}
