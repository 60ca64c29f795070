import type { SdrRow } from "../db/insert-rows";
import type { Steps } from "../db/steps";
import { recordTransitions } from "../messaging/record-transitions";
import type { WebhookResponse } from "./post-webhook";
import {
  insertWebhookAttemptsSteps,
  markEventsDeliveredSteps,
  recordFailedAttemptSteps,
  type ClaimedEvent,
} from "./webhook-queries";

// What a batch of finished attempts writes, in one transaction: each attempt's log row; the accepted events
// delivered; the others scheduled again or, past the retry window, failed for good; and for message-status events
// the message's status_sent or status_failed SDR.

/** One request to one URL. */
export interface Attempt {
  url: string;
  at: Date;
  response: WebhookResponse;
}

/** The last attempt at an event, which decides what follows, and the ones just before it (at the URL, when the
 * last went to the failover URL): logged only. */
export interface AttemptOutcome extends Attempt {
  event: ClaimedEvent;
  earlier?: Attempt[];
}

export interface RetryPolicy {
  /** The dispatcher that leased the events: a retry is recorded only while it still holds the event. */
  owner: string;
  /** Waits after failed attempts, with ±15 % jitter; the last repeats. */
  retryDelaysMs: number[];
  /** No attempt later than this after the event (or its resend). */
  retryWindowMs: number;
}

/** The wait after the `attempts`-th failed attempt, jittered. */
export function nextDelay(retryDelaysMs: number[], attempts: number): number {
  const base = retryDelaysMs[Math.min(attempts - 1, retryDelaysMs.length - 1)]!;
  return base * (0.85 + Math.random() * 0.3);
}

export function* outcomeSteps(batch: AttemptOutcome[], now: Date, policy: RetryPolicy): Steps<void> {
  yield* insertWebhookAttemptsSteps(
    batch.flatMap(({ event, earlier = [], ...last }) =>
      [...earlier, last].map(({ url, at, response }) => [
        event.id,
        event.accountId,
        at,
        url,
        response.httpStatus,
        response.latencyMs,
        response.error,
      ]),
    ),
  );
  const sdrs: SdrRow[] = [];
  const accepted = batch.filter((b) => b.response.error === null);
  if (accepted.length > 0) {
    // Only events still pending become delivered (a resend or another dispatcher may have been first); the
    // status_sent records are for those.
    const delivered = new Set(
      yield* markEventsDeliveredSteps(
        accepted.map((b) => b.event.id),
        now,
      ),
    );
    for (const { event, at, response } of accepted) {
      if (!delivered.has(event.id) || event.kind !== "message-status") continue;
      sdrs.push({
        messageId: event.messageId,
        accountId: event.accountId,
        status: "status_sent",
        statusDetails: `HTTP ${response.httpStatus} from the webhook`,
        segmentNumber: event.segmentNumber,
        createdAt: new Date(at.getTime() + response.latencyMs),
      });
    }
  }
  for (const { event, at, response } of batch) {
    if (response.error === null) continue;
    const finishedAt = at.getTime() + response.latencyMs;
    const attempts = event.attempts + 1;
    let next = finishedAt + nextDelay(policy.retryDelaysMs, attempts);
    if (response.retryAfterAt !== null) next = Math.max(next, response.retryAfterAt);
    const exhausted = next > event.retryFrom.getTime() + policy.retryWindowMs;
    // Failed for good, or tried again at `next`; either way no longer leased, if this dispatcher still held it.
    const updated = yield* recordFailedAttemptSteps({
      id: event.id,
      owner: policy.owner,
      attempts,
      error: response.error,
      nextAttemptAt: exhausted ? null : new Date(next),
    });
    if (updated > 0 && exhausted && event.kind === "message-status") {
      sdrs.push({
        messageId: event.messageId,
        accountId: event.accountId,
        status: "status_failed",
        statusDetails: `webhook not accepted after ${attempts} attempts: ${response.error}`.slice(0, 500),
        segmentNumber: event.segmentNumber,
        createdAt: new Date(finishedAt),
      });
    }
  }
  yield* recordTransitions({ sdrs, at: new Date() });
}
