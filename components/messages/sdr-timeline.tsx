import { Badge, type BadgeTone } from "@/components/ui/badge";
import { formatInZone } from "@/components/ui/format-time";
import type { SdrRecord } from "@/lib/messaging/get-sdrs";
import { parseFilterTimestamp } from "@/lib/messaging/time-format";

const TONES: Record<string, BadgeTone> = {
  accepted: "gray",
  held: "amber",
  scheduled: "gray",
  queued: "gray",
  cancelled: "gray",
  sending: "blue",
  message_sent: "blue",
  wait_dlr: "blue",
  dlr_received: "blue",
  retry: "amber",
  expired: "amber",
  delivered: "green",
  status_sent: "green",
  received: "indigo",
};

/** "07.250" (seconds since the message was accepted) in milliseconds. */
function deltaMs(record: SdrRecord): number {
  return Math.round(Number(record.delta) * 1000);
}

function since(ms: number): string {
  if (ms < 1000) return `+${ms} ms`;
  if (ms < 60_000) return `+${(ms / 1000).toFixed(3)} s`;
  return `+${Math.floor(ms / 60_000)} min ${((ms % 60_000) / 1000).toFixed(0)} s`;
}

/** A message's SDRs in time order: status, the time since the previous record, segment and details. */
export function SdrTimeline({
  records,
  timeZone,
  numSegments,
}: {
  records: SdrRecord[];
  timeZone: string;
  numSegments: number;
}) {
  if (records.length === 0) return <p className="text-sm text-slate-500">No records yet.</p>;
  return (
    <ol aria-label="Timeline" className="relative space-y-3 border-l border-slate-200 pl-4">
      {records.map((record, index) => {
        const previous = index > 0 ? deltaMs(records[index - 1]!) : 0;
        const gap = Math.max(0, deltaMs(record) - previous);
        return (
          <li key={`${index}-${record.status}`} className="relative">
            <span
              aria-hidden="true"
              className="absolute top-1.5 -left-[21px] h-2.5 w-2.5 rounded-full border-2 border-white bg-slate-300"
            />
            <div className="flex flex-wrap items-center gap-x-3 gap-y-1">
              <Badge tone={TONES[record.status] ?? "red"}>{record.status}</Badge>
              <span
                className="font-mono text-xs text-slate-700 tabular-nums"
                title={`Since the previous record; ${record.delta} s after the message was accepted`}
              >
                {index === 0 ? "start" : since(gap)}
              </span>
              <span className="font-mono text-xs text-slate-500" title={record.timestamp}>
                {formatInZone(parseFilterTimestamp(record.timestamp) ?? record.timestamp, timeZone, { ms: true })}
              </span>
              {record.segmentNumber !== undefined && (
                <span className="text-xs text-slate-500">
                  segment {record.segmentNumber}
                  {numSegments > 1 ? ` of ${numSegments}` : ""}
                </span>
              )}
            </div>
            {record.statusDetails && (
              <p className="mt-1 font-mono text-xs break-all text-slate-600">{record.statusDetails}</p>
            )}
          </li>
        );
      })}
    </ol>
  );
}
