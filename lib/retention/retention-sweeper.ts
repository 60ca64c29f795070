import { logger } from "../log";
import { pruneWebhookEvents } from "../webhooks/prune-webhook-events";
import { pruneMessages } from "./prune-messages";
import { pruneSessions } from "./prune-sessions";
import { pruneMedia, UNUSED_GRACE_MS } from "../media/prune-media";
import { withRetentionLock } from "./retention-lock";

const DAY_MS = 86_400_000;

export interface RetentionOptions {
  /** Between two passes, ±20 % jitter (several workers started together do not run theirs together). */
  intervalMs: number;
  /** Finished webhook events are deleted this long after their last scheduled attempt. */
  webhookRetentionMs: number;
  /** Settled messages are deleted this long after they were created; null keeps them forever. */
  messageRetentionMs: number | null;
  batchSize?: number;
}

export interface RetentionPass {
  messages: number;
  conversations: number;
  idempotencyRecords: number;
  webhookEvents: number;
  /** Portal sessions ended more than a day ago. */
  portalSessions: number;
  /** Media no message carries any more (with their bytes in the media store). */
  media: number;
  batches: number;
  /** The longest batch, from its first statement to its commit (how long it held SQLite's write lock). */
  maxBatchMs: number;
  /** Another worker's pass was under way (PostgreSQL): this one did nothing. */
  busy: boolean;
}

const EMPTY: RetentionPass = {
  messages: 0,
  conversations: 0,
  idempotencyRecords: 0,
  webhookEvents: 0,
  portalSessions: 0,
  media: 0,
  batches: 0,
  maxBatchMs: 0,
  busy: false,
};

/**
 * The retention pass of a delivery worker: every interval, finished webhook events past their retention and, when a
 * message retention is set, settled messages past it, each in small batches (lib/retention/prune-in-batches.ts);
 * the media no message carries any more (lib/media/prune-media.ts); and portal sessions ended a day ago.
 * Webhook events of messages go no later than their messages do, so the shorter of the two retentions counts for
 * them.
 */
export class RetentionSweeper {
  private readonly options: RetentionOptions;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<RetentionPass | null> | null = null;
  private stopped = false;
  private readonly log = logger().child({ component: "retention" });

  constructor(options: RetentionOptions) {
    this.options = options;
  }

  start(): void {
    this.stopped = false;
    this.schedule();
    this.log.info(
      {
        messageRetentionDays:
          this.options.messageRetentionMs === null ? null : this.options.messageRetentionMs / DAY_MS,
        webhookRetentionDays: this.options.webhookRetentionMs / DAY_MS,
        intervalSeconds: this.options.intervalMs / 1000,
      },
      "retention started",
    );
  }

  /** Stops after the batch in progress (a pass checks between batches). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }

  private schedule(): void {
    if (this.stopped) return;
    const delay = this.options.intervalMs * (0.8 + Math.random() * 0.4);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.running = this.runOnce()
        .catch((error) => {
          this.log.error({ err: error }, "retention pass failed");
          return null;
        })
        .finally(() => {
          this.running = null;
          this.schedule();
        });
    }, delay);
    this.timer.unref();
  }

  /** One pass now (unless another worker's is under way). */
  async runOnce(now = Date.now()): Promise<RetentionPass> {
    const pass = await withRetentionLock(() => this.prune(now));
    if (pass === null) {
      this.log.debug("retention pass skipped: another worker is pruning");
      return { ...EMPTY, busy: true };
    }
    if (pass.messages + pass.webhookEvents + pass.idempotencyRecords + pass.portalSessions + pass.media > 0)
      this.log.info(pass, "retention pass");
    else this.log.debug(pass, "retention pass: nothing due");
    return pass;
  }

  private async prune(now: number): Promise<RetentionPass> {
    const { messageRetentionMs, webhookRetentionMs, batchSize } = this.options;
    let maxBatchMs = 0;
    const control = {
      batchSize,
      stopping: () => this.stopped,
      onBatch: (ms: number) => (maxBatchMs = Math.max(maxBatchMs, ms)),
    };
    const pass = { ...EMPTY };
    const events = await pruneWebhookEvents(
      new Date(now - Math.min(webhookRetentionMs, messageRetentionMs ?? Infinity)),
      control,
    );
    pass.webhookEvents = events.deleted;
    pass.batches += events.batches;
    if (messageRetentionMs !== null) {
      const messages = await pruneMessages(new Date(now - messageRetentionMs), control);
      pass.messages = messages.messages;
      pass.conversations = messages.conversations;
      pass.idempotencyRecords = messages.idempotencyRecords;
      pass.batches += messages.batches;
    }
    const media = await pruneMedia(new Date(now - UNUSED_GRACE_MS), control);
    pass.media = media.deleted;
    pass.batches += media.batches;
    pass.portalSessions = await pruneSessions(now);
    pass.maxBatchMs = Math.round(maxBatchMs * 10) / 10;
    return pass;
  }
}
