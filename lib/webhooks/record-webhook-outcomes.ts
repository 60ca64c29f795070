import type { Logger } from "../log";
import { writeTransaction } from "../db/steps";
import { metrics, type WebhookOutcome } from "../metrics/define-metrics";
import type { WebhookResponse } from "./post-webhook";
import { outcomeSteps, type AttemptOutcome, type RetryPolicy } from "./webhook-outcome-steps";

/** Outcomes one transaction writes at most. */
const BATCH_SIZE = 500;

/**
 * Attempts are written in batches: those that finish while one batch commits form the next, so a busy dispatcher
 * writes a few statements per batch rather than per event (on SQLite every transaction waits for the one writer).
 * An attempt's slot is freed only once its outcome is committed.
 */
export class WebhookOutcomeRecorder {
  private outcomes: (AttemptOutcome & { resolve: () => void; reject: (error: unknown) => void })[] = [];
  private recording = false;

  constructor(
    private readonly policy: RetryPolicy,
    private readonly log: Logger,
  ) {}

  /** Settles once the attempt's outcome is committed (or its batch failed). */
  record(outcome: AttemptOutcome): Promise<void> {
    return new Promise((resolve, reject) => {
      this.outcomes.push({ ...outcome, resolve, reject });
      if (!this.recording) void this.flush();
    });
  }

  private async flush(): Promise<void> {
    this.recording = true;
    try {
      while (this.outcomes.length > 0) {
        await new Promise((resolve) => setImmediate(resolve));
        const batch = this.outcomes.splice(0, BATCH_SIZE);
        try {
          await writeTransaction(() => outcomeSteps(batch, new Date(), this.policy));
          const attempts = metrics().webhookAttempts;
          for (const item of batch) attempts.inc({ outcome: outcomeOf(item.response) });
          for (const item of batch) item.resolve();
        } catch (error) {
          for (const item of batch) item.reject(error);
        }
        for (const { event, url, response } of batch) {
          if (response.error) {
            this.log.info(
              { eventId: event.id, url, attempts: event.attempts + 1, error: response.error },
              "webhook attempt not accepted",
            );
          }
        }
      }
    } finally {
      this.recording = false;
    }
  }
}

/** An attempt's outcome in the metrics' words: accepted, or why not. */
function outcomeOf(response: WebhookResponse): WebhookOutcome {
  if (response.error === null) return "accepted";
  if (response.failure === "status") return "http_error";
  if (response.failure === "guard") return "refused";
  return response.failure === "timeout" ? "timeout" : "network";
}
