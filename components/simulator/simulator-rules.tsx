"use client";

export interface SimulatorOutcome {
  /** The last four digits of the destination. */
  ending: string;
  outcome: string;
}

// Example phones in a range libphonenumber accepts (415-555-01XX and the like are valid US numbers for it).
const EXAMPLE_PREFIX = "+1415555";

/** The simulated network's rules, each with a phone that follows it, to pick. */
export function SimulatorRules({
  outcomes,
  receiptDelayMs,
  onPick,
  className = "",
}: {
  outcomes: SimulatorOutcome[];
  receiptDelayMs: number;
  onPick: (phone: string) => void;
  className?: string;
}) {
  const seconds = receiptDelayMs / 1000;
  return (
    <aside
      aria-label="How the simulated network answers"
      className={`rounded-lg border border-slate-200 bg-white px-4 py-3 text-xs text-slate-600 shadow-xs ${className}`}
    >
      <p className="font-medium text-slate-800">How the simulated network answers</p>
      <p className="mt-1">
        Messages to a phone get their delivery receipt {seconds === 1 ? "1 second" : `${seconds} seconds`} after they
        leave (SIMULATOR_RECEIPT_DELAY_MS). The phone&apos;s last four digits choose the outcome (pick one to use such a
        phone):
      </p>
      <ul className="mt-2 space-y-0.5">
        {outcomes.map(({ ending, outcome }) => (
          <li key={ending}>
            <button
              type="button"
              className="font-mono text-indigo-700 hover:underline"
              title={`Use ${EXAMPLE_PREFIX}${ending}`}
              onClick={() => onPick(`${EXAMPLE_PREFIX}${ending}`)}
            >
              …{ending}
            </button>{" "}
            {outcome}
          </li>
        ))}
        <li>
          <button
            type="button"
            className="font-mono text-indigo-700 hover:underline"
            title={`Use ${EXAMPLE_PREFIX}0123`}
            onClick={() => onPick(`${EXAMPLE_PREFIX}0123`)}
          >
            other
          </button>{" "}
          delivered
        </li>
      </ul>
      <p className="mt-2">
        Texts from the phone go through Parley&apos;s inbound path like a real phone&apos;s: STOP, START and HELP change
        the opt state and get the automatic reply, and your webhook is called.
      </p>
    </aside>
  );
}
