import { writeTransaction } from "../db/steps";
import { destinationFacts } from "./destination-facts";
import { countBurstSteps } from "./guard-queries";
import type { SendSettings } from "./send-settings";

// The SMS pumping defence: fraudsters make a sign-up or one-time-code form text many numbers of a range they are paid
// for (premium-rate numbers, or mobile ranges abroad). A message to an unusual destination (a premium-rate or
// shared-cost number, or a country none of the account's numbers is in) is counted by its prefix (country code and
// three digits); past the account's burst threshold within ten minutes, further messages to that prefix are accepted
// but held (status `held`) until someone releases or cancels them on the dashboard (held-messages.ts).

export const BURST_WINDOW_MINUTES = 10;
const PRUNE_EVERY_MS = 60_000;
let lastPrune = 0;

/** Whether a destination is one the pumping defence counts. */
export function isUnusual(digits: string, settings: SendSettings): boolean {
  const facts = destinationFacts(digits);
  return facts.premium || !settings.homeCountries.has(facts.country);
}

/**
 * Counts a send's messages to unusual destinations and answers, by entry index, why each one over the threshold is
 * held (the `held` SDR's note). `entries`: the digits of each destination the send accepts (null: refused).
 */
export async function burstHolds(input: {
  accountId: string;
  settings: SendSettings;
  entries: (string | null)[];
  now: Date;
}): Promise<Map<number, string>> {
  const { settings, now } = input;
  const held = new Map<number, string>();
  const threshold = settings.burstHoldThreshold;
  if (threshold <= 0) return held;
  const watched = new Map<string, number[]>();
  input.entries.forEach((digits, index) => {
    if (digits === null || !isUnusual(digits, settings)) return;
    const prefix = destinationFacts(digits).prefix;
    watched.set(prefix, [...(watched.get(prefix) ?? []), index]);
  });
  if (watched.size === 0) return held;
  const minute = Math.floor(now.getTime() / 60_000);
  const prune = now.getTime() - lastPrune >= PRUNE_EVERY_MS;
  if (prune) lastPrune = now.getTime();
  const totals = await writeTransaction(() =>
    countBurstSteps({
      accountId: input.accountId,
      minute,
      since: minute - (BURST_WINDOW_MINUTES - 1),
      counts: new Map([...watched].map(([prefix, indices]) => [prefix, indices.length])),
      pruneBefore: prune ? minute - 6 * BURST_WINDOW_MINUTES : null,
    }),
  );
  for (const [prefix, indices] of watched) {
    const before = (totals.get(prefix) ?? indices.length) - indices.length;
    indices.forEach((index, k) => {
      const position = before + k + 1;
      if (position <= threshold) return;
      held.set(
        index,
        `held for review: ${position} messages to +${prefix}… within ${BURST_WINDOW_MINUTES} minutes ` +
          `(more than ${threshold}); release or cancel it on the dashboard`,
      );
    });
  }
  return held;
}
