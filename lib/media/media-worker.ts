import { env } from "../env";
import { logger } from "../log";
import { fetchPendingInbound } from "./fetch-inbound";
import { prepareOutboundMedia } from "./prepare-outbound";
import { sweepMediaTemp } from "./media-temp";

// The worker's media loop (wherever the delivery worker runs): outbound MMS waiting for their media to be fetched and
// fitted, and inbound media still to be fetched or tried again. A pass that found work is followed at once by the
// next; an idle one waits `pollMs`.

export class MediaWorker {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = true;
  private readonly log = logger().child({ component: "media" });

  constructor(private readonly pollMs = 250) {}

  start(): void {
    this.stopped = false;
    const loop = () => {
      if (this.stopped) return;
      let busy = false;
      this.running = this.pass()
        .then((worked) => {
          busy = worked;
        })
        .catch((error: unknown) => this.log.error({ err: error }, "media pass failed"))
        .finally(() => {
          this.running = null;
          if (!this.stopped) this.timer = setTimeout(loop, busy ? 0 : this.pollMs);
        });
    };
    loop();
  }

  /** One pass of both kinds of work; true when there was some. */
  async pass(): Promise<boolean> {
    // Side by side: a slow outbound fetch holds no inbound medium back, and a failure of one kind not the other.
    const [prepared, fetched] = await Promise.all([
      prepareOutboundMedia().catch((error: unknown) => {
        this.log.error({ err: error }, "outbound media pass failed");
        return 0;
      }),
      fetchPendingInbound().catch((error: unknown) => {
        this.log.error({ err: error }, "inbound media pass failed");
        return 0;
      }),
    ]);
    return prepared > 0 || fetched > 0;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }
}

/** The media loop, as often idle as the delivery worker's rounds (WORKER_POLL_MS): an MMS waits for one look. */
export function startConfiguredMediaWorker(): MediaWorker {
  const worker = new MediaWorker(env().WORKER_POLL_MS);
  void sweepMediaTemp().catch((error: unknown) => logger().warn({ err: error }, "media in passing not swept"));
  worker.start();
  return worker;
}
