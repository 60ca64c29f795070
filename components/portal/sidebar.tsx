"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import { useState } from "react";
import { SignOutButton } from "./sign-out-button";
import { useViewer } from "./portal-context";
import { navItems } from "./nav-items";
import { EnableNotificationsButton, MentionBadge } from "@/components/conversations/note-live";

function isActive(pathname: string, href: string): boolean {
  return href === "/" ? pathname === "/" : pathname === href || pathname.startsWith(`${href}/`);
}

export function Sidebar({ showSimulator }: { showSimulator: boolean }) {
  const viewer = useViewer();
  const pathname = usePathname();
  const [open, setOpen] = useState(false);
  const items = navItems.filter(
    (item) => (viewer.role === "admin" || !item.adminOnly) && (item.href !== "/simulator" || showSimulator),
  );
  return (
    <aside className="border-b border-gray-800 bg-gray-900 text-gray-200 md:sticky md:top-0 md:flex md:h-screen md:flex-col md:border-b-0">
      <div className="flex items-center justify-between px-4 py-3 md:py-5">
        <Link href={viewer.role === "admin" ? "/" : "/conversations"} className="text-lg font-semibold text-white">
          Parley
        </Link>
        <button
          type="button"
          className="rounded px-2 py-1 text-sm text-gray-300 hover:bg-gray-800 md:hidden"
          aria-expanded={open}
          aria-controls="portal-nav"
          onClick={() => setOpen((v) => !v)}
        >
          Menu
        </button>
      </div>
      <nav
        id="portal-nav"
        aria-label="Portal"
        className={`${open ? "block" : "hidden"} px-2 pb-3 md:block md:flex-1 md:overflow-y-auto`}
      >
        <ul className="space-y-0.5">
          {items.map((item) => {
            const active = isActive(pathname, item.href);
            return (
              <li key={item.href}>
                <Link
                  href={item.href}
                  onClick={() => setOpen(false)}
                  aria-current={active ? "page" : undefined}
                  className={`block rounded-md px-3 py-2 text-sm ${active ? "bg-gray-800 font-medium text-white" : "text-gray-300 hover:bg-gray-800/60 hover:text-white"}`}
                >
                  {item.label}
                  {item.href === "/conversations" && <MentionBadge />}
                </Link>
              </li>
            );
          })}
          <li>
            <a
              href="/docs"
              className="block rounded-md px-3 py-2 text-sm text-gray-400 hover:bg-gray-800/60 hover:text-white"
            >
              API docs
            </a>
          </li>
        </ul>
      </nav>
      <div className={`${open ? "block" : "hidden"} border-t border-gray-800 px-4 py-3 text-sm md:block`}>
        <p className="truncate font-medium text-white" title={viewer.email}>
          {viewer.name || viewer.email}
        </p>
        <p className="truncate text-xs text-gray-400">
          {viewer.email} · {viewer.role}
        </p>
        <p className="truncate text-xs text-gray-400" title={viewer.accountId}>
          {viewer.accountName}
        </p>
        <EnableNotificationsButton />
        <div className="mt-2">
          <SignOutButton />
        </div>
      </div>
    </aside>
  );
}
