"use client";

import type { ReactNode } from "react";
import { usePathname } from "next/navigation";

/**
 * The portal's main column: pages keep a readable width, the inbox takes the whole screen (its list, thread and
 * contact panel sit side by side on a wide one).
 */
export function PortalMain({ children }: { children: ReactNode }) {
  const inbox = /^\/conversations(\/|$)/.test(usePathname() ?? "");
  return (
    <main
      className={`mx-auto w-full min-w-0 px-4 sm:px-6 ${inbox ? "py-4 md:py-5 xl:max-w-none" : "max-w-6xl py-6 md:py-8"}`}
    >
      {children}
    </main>
  );
}
