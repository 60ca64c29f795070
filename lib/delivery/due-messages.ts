import { readTransaction, writeTransaction, type Steps } from "../db/steps";
import { recordTransitions, sdrRow } from "../messaging/record-transitions";
import { VALIDITY_UNSENT_NOTE, WAITING_STATUSES } from "../messaging/message-status";
import { dueSchedulesSteps, lapsedSteps, type LapsedRow } from "./delivery-queries";

// The two clocks of a waiting message, looked at by every worker a few times a second: a scheduled send joins the
// queue at its sendAt, and a message its validity ran out for before anything left ends `expired`. Both are
// compare-and-set transitions (only messages still waiting change, with their SDRs and webhook events), so several
// workers looking at once move each message once. The looks are reads of their own, on partial indexes that hold
// only waiting messages (delivery-queries.ts), so the usual case (nothing due) costs an index probe and takes no
// write lock.

const BATCH = 500;

/** Scheduled messages whose time has come join the queue (`queued`, with a `queued` SDR). Returns how many. */
export async function promoteDueSchedules(now: number): Promise<number> {
  const due = await readTransaction(() => dueSchedulesSteps(new Date(now), BATCH));
  if (due.length === 0) return 0;
  const at = new Date();
  const unmoved = await writeTransaction(() =>
    recordTransitions({
      changes: [{ ids: due.map((m) => m.id), set: { status: "queued" }, onlyFrom: { status: ["scheduled"] } }],
      sdrs: due.map((m) => sdrRow(m.id, m.accountId, "queued", at.getTime(), { statusDetails: m.bulk ? "bulk" : "" })),
      at,
    }),
  );
  return due.length - unmoved.size;
}

/**
 * Messages still waiting (scheduled or queued, no part handed to the carrier) whose validity ran out end `expired`:
 * an `expired` SDR and status event for each of their segments, none of which will ever be sent. Returns how many.
 */
export async function expireLapsedMessages(now: number): Promise<number> {
  const lapsed = await readTransaction(() => lapsedSteps(new Date(now), BATCH));
  if (lapsed.length === 0) return 0;
  const at = new Date();
  const unmoved = await writeTransaction(() => expireSteps(lapsed, at));
  return lapsed.length - unmoved.size;
}

function* expireSteps(lapsed: LapsedRow[], at: Date): Steps<Set<string>> {
  return yield* recordTransitions({
    changes: [
      {
        ids: lapsed.map((m) => m.id),
        set: { status: "expired", nextAttemptAt: null },
        onlyFrom: { status: WAITING_STATUSES, partsSubmitted: 0 },
      },
    ],
    sdrs: lapsed.flatMap((m) => everySegment(m, "expired", VALIDITY_UNSENT_NOTE, at)),
    at,
  });
}

/**
 * An outcome SDR for each segment of a message none of whose segments left (cancelled, or expired while waiting):
 * each segment gets its status event, as a receipt's outcome would give it.
 */
export function everySegment(
  message: { id: string; accountId: string; referenceId: string | null; numSegments: number | bigint },
  status: string,
  note: string,
  at: Date,
) {
  return Array.from({ length: Math.max(1, Number(message.numSegments)) }, (_, i) =>
    sdrRow(message.id, message.accountId, status, at.getTime(), {
      segmentNumber: i + 1,
      statusDetails: note,
      referenceId: message.referenceId,
    }),
  );
}
