import Link from "next/link";
import { redirect } from "next/navigation";
import { getServerSession } from "next-auth";
import type { ReactNode } from "react";
import { authOptions } from "@/lib/auth/auth-options";
import { portalUser } from "@/lib/auth/portal-session";
import { SignOutButton } from "@/components/portal/sign-out-button";

export default async function PortalLayout({ children }: { children: ReactNode }) {
  const user = portalUser(await getServerSession(authOptions));
  if (!user) redirect("/login");
  return (
    <div className="min-h-screen">
      <header className="border-b border-slate-200 bg-white">
        <div className="mx-auto flex max-w-5xl items-center justify-between px-6 py-3">
          <Link href="/" className="text-lg font-semibold text-indigo-700">
            Parley
          </Link>
          <nav className="flex items-center gap-5 text-sm">
            <Link href="/docs" className="text-slate-600 hover:text-slate-900">
              API docs
            </Link>
            <span className="text-slate-400">
              {user.email} · {user.role}
            </span>
            <SignOutButton />
          </nav>
        </div>
      </header>
      <main className="mx-auto max-w-5xl px-6 py-8">{children}</main>
    </div>
  );
}
