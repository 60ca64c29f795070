"use client";

import type { ReactNode } from "react";
import { LocalTime } from "@/components/ui/local-time";
import type { WebhookHealth } from "@/lib/webhooks/webhook-health";

function Figure({
  label,
  value,
  detail,
  tone = "slate",
}: {
  label: string;
  value: ReactNode;
  detail: ReactNode;
  tone?: "slate" | "green" | "amber" | "red";
}) {
  const colour = { slate: "text-slate-900", green: "text-emerald-700", amber: "text-amber-700", red: "text-red-700" }[
    tone
  ];
  return (
    <div className="min-w-0 rounded-lg border border-slate-200 bg-white p-4 shadow-xs">
      <p className="text-xs font-medium tracking-wide text-slate-500 uppercase">{label}</p>
      <p className={`mt-1 truncate text-xl font-semibold ${colour}`}>{value}</p>
      <div className="mt-1 text-xs break-words text-slate-500">{detail}</div>
    </div>
  );
}

/** The three figures at the top of the webhook page: success rate (24 h), last error, backlog. */
export function HealthSummary({ health }: { health: WebhookHealth }) {
  const rate = health.successRate;
  const percent = rate === null ? null : Math.floor(rate * 1000) / 10;
  return (
    <section aria-label="Webhook health" className="grid gap-3 sm:grid-cols-3">
      <Figure
        label="Success rate, last 24 h"
        value={percent === null ? "—" : `${percent} %`}
        tone={rate === null ? "slate" : rate >= 0.99 ? "green" : rate >= 0.9 ? "amber" : "red"}
        detail={
          health.attempts === 0
            ? "No delivery attempts in the last 24 h."
            : `${health.accepted.toLocaleString()} of ${health.attempts.toLocaleString()} attempts accepted.`
        }
      />
      <Figure
        label="Last error"
        value={
          health.lastError
            ? health.lastError.httpStatus !== null
              ? `HTTP ${health.lastError.httpStatus}`
              : "No answer"
            : "None"
        }
        tone={health.lastError ? "red" : "slate"}
        detail={
          health.lastError ? (
            <>
              <LocalTime iso={health.lastError.at} ago />:{" "}
              <span title={health.lastError.error}>{health.lastError.error.slice(0, 140)}</span>
            </>
          ) : health.lastDeliveredAt ? (
            <>
              Last delivery <LocalTime iso={health.lastDeliveredAt} ago />.
            </>
          ) : (
            "Nothing delivered yet."
          )
        }
      />
      <Figure
        label="Backlog"
        value={`${health.backlog.toLocaleString()} waiting`}
        tone={health.backlog > 0 ? "amber" : "slate"}
        detail={
          <>
            {health.oldestPendingAt ? (
              <>
                Oldest from <LocalTime iso={health.oldestPendingAt} ago />.{" "}
              </>
            ) : (
              "Nothing waiting. "
            )}
            {health.failedEvents > 0 &&
              `${health.failedEvents.toLocaleString()} failed event${health.failedEvents === 1 ? "" : "s"} can be resent.`}
          </>
        }
      />
    </section>
  );
}
