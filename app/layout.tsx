import type { Metadata } from "next";
import type { ReactNode } from "react";
import "./globals.css";

// Every page is rendered per request, the sign-in page and the not-found page included: each answer's
// Content-Security-Policy carries a fresh nonce (lib/http/security-headers.ts) that Next puts on the page's inline
// scripts while it renders. A page prerendered at build time would carry scripts without it, which the browser
// refuses to run.
export const dynamic = "force-dynamic";

export const metadata: Metadata = {
  title: "Parley",
  description: "Self-hosted SMS/MMS messaging",
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body className="min-h-screen bg-slate-50 text-slate-900 antialiased">{children}</body>
    </html>
  );
}
