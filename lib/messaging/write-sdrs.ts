import { insertRowsSteps, SDR_COLUMNS, sdrValues, type SdrRow } from "../db/insert-rows";
import { afterCommit, runSteps, type RawClient, type Steps } from "../db/steps";
import { announceChanges } from "../realtime/announce-changes";

// SDRs are the log of changes the live view follows: whoever writes them also wakes it, once they are committed.
// Written here rather than in lib/db, which stores rows and knows nothing of who listens. The domain writes them
// through recordTransitions (record-transitions.ts), with the change they log; insertSdrs is for seeding.
export function* insertSdrsSteps(sdrs: SdrRow[]): Steps<void> {
  yield* insertRowsSteps("Sdr", SDR_COLUMNS, sdrs.map(sdrValues));
  // The live view: new positions in the log of changes.
  if (sdrs.length > 0) yield* afterCommit(announceChanges);
}

export async function insertSdrs(client: RawClient, sdrs: SdrRow[]): Promise<void> {
  await runSteps(client, insertSdrsSteps(sdrs));
}
