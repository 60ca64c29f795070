// The daily limits' warnings as the portal words them (the banner on every page, the dashboard's panel). No server
// imports: the browser renders these too.

export interface LimitUse {
  used: number;
  max: number;
}

export interface UsageOfDay {
  day: string;
  timeZone: string;
  resetsAt: string;
  messages: LimitUse;
  segments: LimitUse;
}

export interface LimitWarning {
  limit: "messages" | "segments";
  reached: boolean;
  percent: number;
  text: string;
}

/** The share of a limit at which the portal and the webhook warn. */
export const WARN_SHARE = 0.8;

/** One warning per limit at 80 % or more of its maximum, the reached ones first. */
export function limitWarnings(usage: UsageOfDay): LimitWarning[] {
  const warnings: LimitWarning[] = [];
  for (const limit of ["messages", "segments"] as const) {
    const { used, max } = usage[limit];
    if (max <= 0 || used < max * WARN_SHARE) continue;
    const reached = used >= max;
    const percent = Math.floor((used / max) * 100);
    const figures = `${used.toLocaleString("en-US")} of ${max.toLocaleString("en-US")} ${limit}`;
    warnings.push({
      limit,
      reached,
      percent,
      text: reached
        ? `Today's ${limit.slice(0, -1)} limit is reached (${figures}): sends are refused until the account's day ends (${usage.timeZone}).`
        : `Today's ${limit} are at ${percent} % of the daily limit (${figures}): past it, sends are refused until the day ends (${usage.timeZone}).`,
    });
  }
  return warnings.sort((a, b) => Number(b.reached) - Number(a.reached));
}
