const COLORS: Record<string, string> = {
  GET: "bg-sky-100 text-sky-800 ring-sky-200",
  POST: "bg-emerald-100 text-emerald-800 ring-emerald-200",
  PUT: "bg-amber-100 text-amber-800 ring-amber-200",
  DELETE: "bg-rose-100 text-rose-800 ring-rose-200",
};

export function MethodBadge({ method }: { method: string }) {
  const upper = method.toUpperCase();
  return (
    <span
      className={`inline-block rounded px-2 py-0.5 font-mono text-xs font-bold ring-1 ring-inset ${COLORS[upper] ?? "bg-slate-100 text-slate-800 ring-slate-200"}`}
    >
      {upper}
    </span>
  );
}
