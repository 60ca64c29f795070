import Link from "next/link";

export const metadata = { title: "Not allowed · Parley" };

// Answered with HTTP 403 when a page calls forbidden(): an agent on an admin page. It shows inside the portal
// shell, whose own <main> holds it: a second main landmark here would be one too many.
export default function Forbidden() {
  return (
    <div className="flex min-h-[70vh] items-center justify-center p-6">
      <div className="max-w-md rounded-xl border border-slate-200 bg-white p-8 text-center shadow-sm">
        <p className="text-sm font-semibold text-red-700">403</p>
        <h1 className="mt-1 text-xl font-semibold">This page is for the account&apos;s admins</h1>
        <p className="mt-2 text-sm text-slate-600">
          Your role does not include it. Ask an admin of your account if you need access.
        </p>
        <Link href="/conversations" className="mt-5 inline-block text-sm font-medium text-indigo-700 hover:underline">
          Go to Conversations
        </Link>
      </div>
    </div>
  );
}
