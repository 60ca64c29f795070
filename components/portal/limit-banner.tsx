import Link from "next/link";
import type { LimitWarning } from "@/lib/guard/limit-warnings";

/**
 * The portal-wide banner of the daily limits (lib/guard): shown on every page once a limit is at 80 % (amber) or
 * reached (red), as the layout rendered it; the dashboard's panel follows it live.
 */
export function LimitBanner({ warnings, admin }: { warnings: LimitWarning[]; admin: boolean }) {
  if (warnings.length === 0) return null;
  const reached = warnings.some((w) => w.reached);
  return (
    <div
      role={reached ? "alert" : "status"}
      aria-label="Daily limit"
      className={`border-b px-4 py-2 text-sm sm:px-6 ${
        reached ? "border-red-200 bg-red-50 text-red-900" : "border-amber-200 bg-amber-50 text-amber-900"
      }`}
    >
      {warnings.map((w) => (
        <p key={w.limit}>{w.text}</p>
      ))}
      {admin && (
        <p className="mt-0.5">
          <Link className="font-medium underline" href="/settings">
            Change the limits in Settings
          </Link>
        </p>
      )}
    </div>
  );
}
