import { formatTime } from "@/components/ui/format-time";
import { AccountTime } from "@/components/ui/account-time";
import { describeActivity } from "@/lib/conversations/assign-decisions";
import type { ActivityView } from "@/lib/realtime/change-schema";
import type { NoteView } from "@/lib/notes/note-schema";
import type { ThreadMessageView } from "./thread-types";

/** A thread's messages, activity entries and internal notes in one timeline, oldest first. */
export type TimelineItem =
  | { kind: "message"; at: string; message: ThreadMessageView }
  | { kind: "activity"; at: string; activity: ActivityView }
  | { kind: "note"; at: string; note: NoteView };

export function timeline(
  messages: ThreadMessageView[],
  activity: ActivityView[] = [],
  notes: NoteView[] = [],
): TimelineItem[] {
  const items: TimelineItem[] = messages.map((message) => ({ kind: "message", at: message.createdAt, message }));
  if (activity.length === 0 && notes.length === 0) return items;
  for (const a of activity) items.push({ kind: "activity", at: a.createdAt, activity: a });
  for (const note of notes) items.push({ kind: "note", at: note.createdAt, note });
  // A stable sort: messages keep their order among themselves.
  return items.sort((x, y) => (x.at < y.at ? -1 : x.at > y.at ? 1 : 0));
}

/** One activity entry as a muted line among the bubbles: "Ana assigned this to Ben · 10:42". */
export function ActivityLine({ activity }: { activity: ActivityView }) {
  const text = describeActivity({
    kind: activity.kind,
    actorName: activity.actorName,
    targetName: activity.targetName,
    selfAssigned: activity.actorId !== null && activity.actorId === activity.targetId,
    until: activity.kind === "snoozed" && activity.body ? formatTime(activity.body) : undefined,
  });
  return (
    <li className="text-center text-xs text-slate-500" data-activity={activity.kind}>
      {text} · <AccountTime iso={activity.createdAt} />
    </li>
  );
}
