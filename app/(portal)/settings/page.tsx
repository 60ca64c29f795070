import { requireAdmin } from "@/app/(portal)/require-user";
import { PageHeader, Panel } from "@/components/ui/page-header";
import { CopyButton } from "@/components/ui/copy-button";
import { SettingsForm } from "@/components/settings/settings-form";
import { AssignmentSettings } from "@/components/conversations/assignment-settings";
import { getAccountSettings } from "@/lib/accounts/account-settings";

export const metadata = { title: "Settings · Parley" };

export default async function Page() {
  const user = await requireAdmin();
  const settings = await getAccountSettings(user.accountId);
  return (
    <>
      <PageHeader title="Settings" description="The account's name, time zone and sending limits." />
      <div className="space-y-6">
        <Panel title="Account id" description="Send it as accountId in API requests (and as the user of HTTP Basic).">
          <div className="flex flex-wrap items-center gap-2">
            <code
              data-testid="account-id"
              className="min-w-0 rounded-md border border-slate-200 bg-slate-50 px-3 py-2 font-mono text-sm break-all text-slate-900"
            >
              {settings.id}
            </code>
            <CopyButton text={settings.id} label="Copy account id" />
          </div>
        </Panel>
        <SettingsForm initial={settings} />
        <AssignmentSettings initial={settings} />
      </div>
    </>
  );
}
