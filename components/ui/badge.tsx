import type { ReactNode } from "react";

const tones = {
  gray: "bg-slate-100 text-slate-700 ring-slate-200",
  green: "bg-emerald-50 text-emerald-700 ring-emerald-200",
  blue: "bg-sky-50 text-sky-700 ring-sky-200",
  amber: "bg-amber-50 text-amber-800 ring-amber-200",
  red: "bg-red-50 text-red-700 ring-red-200",
  indigo: "bg-indigo-50 text-indigo-700 ring-indigo-200",
} as const;

export type BadgeTone = keyof typeof tones;

export function Badge({ tone = "gray", children, title }: { tone?: BadgeTone; children: ReactNode; title?: string }) {
  return (
    <span
      title={title}
      className={`inline-flex items-center rounded-full px-2 py-0.5 text-xs font-medium ring-1 ring-inset whitespace-nowrap ${tones[tone]}`}
    >
      {children}
    </span>
  );
}

/** A message's listing status as a coloured badge; inbound messages (status "") read "received". */
export function StatusBadge({ status }: { status: string }) {
  const tone: BadgeTone =
    status === "delivered"
      ? "green"
      : status === "sent" || status === "sending"
        ? "blue"
        : status === "queued" || status === "accepted" || status === "scheduled" || status === "cancelled"
          ? "gray"
          : status === "" || status === "received"
            ? "indigo"
            : status === "expired" || status === "held"
              ? "amber"
              : "red";
  return <Badge tone={tone}>{status || "received"}</Badge>;
}
