import { TimeText } from "@/components/ui/time-text";
import type { SessionListing } from "@/lib/auth/list-sessions";

/** One portal session in words: browser and system, address, when it signed in and when it was last used. */
export function SessionSummary({ session }: { session: SessionListing }) {
  return (
    <div className="min-w-0">
      <div className="font-medium text-slate-900" title={session.userAgent || undefined}>
        {session.browser}
      </div>
      <div className="mt-0.5 flex flex-wrap gap-x-3 gap-y-0.5 text-xs text-slate-500">
        <span>{session.ip || "address unknown"}</span>
        <span>
          Signed in <TimeText iso={session.signedInAt} ago />
        </span>
        <span>
          Last seen <TimeText iso={session.lastSeenAt} ago />
        </span>
      </div>
    </div>
  );
}
