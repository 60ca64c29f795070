"use client";

import { useEndUserSession } from "@/components/data/use-users";
import { SessionSummary } from "@/components/profile/session-summary";
import { failureText } from "@/components/ui/api-client";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Notice } from "@/components/ui/notice";
import type { SessionListing } from "@/lib/auth/list-sessions";
import type { UserListing } from "./user-types";

/**
 * Under a user's row: where they are signed in, each session with Revoke, and "Sign out everywhere". An ended
 * session's next request is refused and its live connection closed.
 */
export function UserSessionsRow({
  user,
  sessions,
  columns,
}: {
  user: UserListing;
  sessions: SessionListing[];
  columns: number;
}) {
  const end = useEndUserSession(user);
  const busy = (what: SessionListing | "all") =>
    end.isPending && (end.variables === "all" || what === "all" || end.variables.id === what.id);
  if (sessions.length === 0) return null;
  return (
    <tr className="align-top">
      <td colSpan={columns} className="px-3 pb-3">
        <div
          role="group"
          aria-label={`Sessions of ${user.email}`}
          className="rounded-md border border-slate-200 bg-slate-50 px-3 py-2"
        >
          <div className="mb-1 flex flex-wrap items-center justify-between gap-2">
            <span className="text-xs font-medium text-slate-600 uppercase">
              {sessions.length === 1 ? "1 active session" : `${sessions.length} active sessions`}
            </span>
            <Button variant="secondary" size="sm" disabled={busy("all")} onClick={() => end.mutate("all")}>
              Sign out everywhere
            </Button>
          </div>
          {end.isError && (
            <Notice tone="error" className="my-2">
              Not signed out: {failureText(end.error)}
            </Notice>
          )}
          <ul className="divide-y divide-slate-200">
            {sessions.map((session) => (
              <li key={session.id} className="flex flex-wrap items-center justify-between gap-2 py-2 text-sm">
                <SessionSummary session={session} />
                <div className="flex items-center gap-2">
                  {session.current && <Badge tone="green">This session</Badge>}
                  <Button
                    variant="secondary"
                    size="sm"
                    disabled={busy(session)}
                    onClick={() => end.mutate(session)}
                    aria-label={`Revoke ${session.browser} session of ${user.email}`}
                  >
                    Revoke
                  </Button>
                </div>
              </li>
            ))}
          </ul>
        </div>
      </td>
    </tr>
  );
}
