import { Badge, type BadgeTone } from "@/components/ui/badge";

// A carrier connection's health as the worker last recorded it: up, down, connecting, unknown (not used yet) or
// disabled. Shared by the Carriers page and the dashboard.

const TONES: Record<string, BadgeTone> = {
  up: "green",
  down: "red",
  connecting: "amber",
  unknown: "gray",
  disabled: "gray",
};

export function ConnectionStateBadge({ state, detail }: { state: string; detail?: string }) {
  return (
    <Badge tone={TONES[state] ?? "gray"} title={detail || undefined}>
      {state}
    </Badge>
  );
}

/** What a state means, when the detail does not say it. */
export function stateWords(state: string, detail: string): string {
  if (detail) return detail;
  if (state === "unknown") return "Not used yet: the worker connects when one of its numbers first sends.";
  if (state === "disabled") return "Disabled: its numbers send nothing until it is enabled.";
  return "";
}
