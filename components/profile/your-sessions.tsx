"use client";

import { useEndOwnSession, useOwnSessions, type Sessions } from "@/components/data/use-profile";
import { failureText } from "@/components/ui/api-client";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { LoadFailure } from "@/components/ui/data-table";
import { Notice } from "@/components/ui/notice";
import { Panel } from "@/components/ui/page-header";
import { SessionSummary } from "./session-summary";

/** The signed-in user's open sessions; any but this one can be signed out from here. */
export function YourSessions({ initial }: { initial: Sessions }) {
  const list = useOwnSessions(initial);
  const end = useEndOwnSession();

  return (
    <Panel
      title="Your sessions"
      description="Where you are signed in. Sign out a session you do not recognise, then change your password."
    >
      {list.isError && <LoadFailure what="sessions" error={list.error} />}
      {end.isError && (
        <Notice tone="error" className="mb-4">
          Not signed out: {failureText(end.error)}
        </Notice>
      )}
      <ul className="-my-2 divide-y divide-slate-100" aria-label="Your sessions">
        {list.data.sessions.map((session) => (
          <li key={session.id} className="flex flex-wrap items-center justify-between gap-3 py-2.5 text-sm">
            <SessionSummary session={session} />
            {session.current ? (
              <Badge tone="green">This session</Badge>
            ) : (
              <Button
                variant="secondary"
                size="sm"
                disabled={end.isPending && end.variables?.id === session.id}
                onClick={() => end.mutate(session)}
                aria-label={`Sign out ${session.browser} at ${session.ip || "an unknown address"}`}
              >
                Sign out
              </Button>
            )}
          </li>
        ))}
      </ul>
    </Panel>
  );
}
