import Link from "next/link";
import { CopyButton } from "@/components/ui/copy-button";

/** What the Messages page says before the account has sent or received anything: how to send the first message. */
export function FirstMessageHelp({
  baseUrl,
  accountId,
  from,
  isAdmin,
  simulator,
}: {
  baseUrl: string;
  accountId: string;
  from: string | null;
  isAdmin: boolean;
  simulator: boolean;
}) {
  const body = JSON.stringify(
    { accountId, from: from ?? "<one of your numbers>", to: "14155550123", body: "Hello from Parley" },
    null,
    2,
  );
  const curl = [
    `curl -s ${baseUrl}/v3/messages \\`,
    `  -H "apikey: $PARLEY_API_KEY" \\`,
    `  -H "content-type: application/json" \\`,
    `  -d '${body}'`,
  ].join("\n");
  return (
    <section
      aria-labelledby="first-message-title"
      className="rounded-lg border border-dashed border-slate-300 bg-white px-5 py-8 sm:px-8"
    >
      <h2 id="first-message-title" className="font-medium text-slate-900">
        No messages yet
      </h2>
      <p className="mt-1 max-w-2xl text-sm text-slate-600">
        Send the first one through the API: every message sent or received shows up here, with its delivery timeline.
        {from === null && " The account has no number yet: an admin adds one on the Numbers page first."}
      </p>
      <div className="mt-4 max-w-3xl">
        <div className="flex items-center justify-between gap-2">
          <p className="text-sm font-medium text-slate-700">With curl</p>
          <CopyButton text={curl} label="Copy command" />
        </div>
        <pre className="mt-2 overflow-x-auto rounded-md bg-slate-900 p-3 text-xs leading-relaxed text-slate-100">
          <code>{curl}</code>
        </pre>
        <p className="mt-2 text-xs text-slate-500">
          Set <code className="font-mono">PARLEY_API_KEY</code> to one of the account&apos;s API keys
          {isAdmin ? (
            <>
              {" "}
              (make one on the{" "}
              <Link href="/keys" className="text-indigo-700 underline">
                API keys
              </Link>{" "}
              page)
            </>
          ) : (
            " (an admin of the account can make one)"
          )}
          . The{" "}
          <a href="/docs" className="text-indigo-700 underline">
            API reference
          </a>{" "}
          has every field.
        </p>
      </div>
      {simulator && isAdmin && (
        <p className="mt-4 text-sm text-slate-600">
          No carrier yet? The{" "}
          <Link href="/simulator" className="text-indigo-700 underline">
            phone simulator
          </Link>{" "}
          plays the phone: text the account&apos;s numbers from it, and answer what they send.
        </p>
      )}
    </section>
  );
}
