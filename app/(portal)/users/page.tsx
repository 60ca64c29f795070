import { requireAdmin } from "@/app/(portal)/require-user";
import { PageHeader } from "@/components/ui/page-header";
import { UsersScreen } from "@/components/users/users-screen";
import { ActivityPanel } from "@/components/users/activity-panel";
import { AUDIT_PAGE_SIZE, USER_PAGE_SIZE } from "@/components/users/user-types";
import { listUsers } from "@/lib/accounts/manage-users";
import { listAudit } from "@/lib/audit/audit-trail";

export const metadata = { title: "Users · Parley" };

export default async function Page() {
  const user = await requireAdmin();
  const [users, audit] = await Promise.all([
    listUsers({ accountId: user.accountId, start: 0, count: USER_PAGE_SIZE, currentSessionId: user.sessionId }),
    listAudit({ accountId: user.accountId, start: 0, count: AUDIT_PAGE_SIZE }),
  ]);
  return (
    <>
      <PageHeader
        title="Users"
        description="The people who sign in to this portal for the account, their roles, and the account's activity."
      />
      <div className="space-y-6">
        <UsersScreen initial={users} />
        <ActivityPanel initial={{ ...audit, start: 0, count: AUDIT_PAGE_SIZE }} />
      </div>
    </>
  );
}
