import { getServerSession } from "next-auth";
import { redirect } from "next/navigation";
import { authOptions } from "@/lib/auth/auth-options";
import { portalUser } from "@/lib/auth/portal-session";
import { accountOverview } from "@/lib/accounts/account-overview";
import { MessagesTable } from "@/components/portal/messages-table";

export const dynamic = "force-dynamic";

export default async function Home() {
  const user = portalUser(await getServerSession(authOptions));
  if (!user) redirect("/login");
  const { account, numbers, keys, recent, total } = await accountOverview(user.accountId);
  return (
    <div className="space-y-8">
      <section>
        <h1 className="text-2xl font-semibold">{account?.name}</h1>
        <p className="mt-1 font-mono text-sm text-slate-500">Account id {user.accountId}</p>
      </section>
      <section className="grid gap-6 md:grid-cols-2">
        <div className="rounded-lg border border-slate-200 bg-white p-5">
          <h2 className="font-medium">Numbers</h2>
          <ul className="mt-3 space-y-1 font-mono text-sm">
            {numbers.map((n) => (
              <li key={n.id}>+{n.number}</li>
            ))}
            {numbers.length === 0 && <li className="font-sans text-slate-500">No numbers yet.</li>}
          </ul>
        </div>
        <div className="rounded-lg border border-slate-200 bg-white p-5">
          <h2 className="font-medium">API keys</h2>
          <ul className="mt-3 space-y-1 text-sm">
            {keys.map((k) => (
              <li key={k.id} className="flex justify-between gap-2">
                <span className="font-mono">
                  {k.prefix}…{k.last4}
                </span>
                <span className="text-slate-500">{k.revokedAt ? "revoked" : k.name || "active"}</span>
              </li>
            ))}
          </ul>
        </div>
      </section>
      <section>
        <h2 className="font-medium">
          Recent messages <span className="text-slate-500">({total} in all)</span>
        </h2>
        <MessagesTable messages={recent} />
      </section>
    </div>
  );
}
