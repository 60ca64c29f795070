import Link from "next/link";

export const metadata = { title: "Not found · Parley" };

// Any path without a page. Styled with the portal's classes: Next's built-in 404 page styles itself with style
// attributes, which the Content-Security-Policy (style-src 'self') does not allow.
export default function NotFound() {
  return (
    <main className="flex min-h-[70vh] items-center justify-center p-6">
      <div className="max-w-md rounded-xl border border-slate-200 bg-white p-8 text-center shadow-sm">
        <p className="text-sm font-semibold text-slate-500">404</p>
        <h1 className="mt-1 text-xl font-semibold">This page does not exist</h1>
        <p className="mt-2 text-sm text-slate-600">Check the address, or start again from the portal.</p>
        <Link href="/" className="mt-5 inline-block text-sm font-medium text-indigo-700 hover:underline">
          Go to Parley
        </Link>
      </div>
    </main>
  );
}
