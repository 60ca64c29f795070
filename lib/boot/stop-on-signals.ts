import type { Logger } from "../log";

/**
 * A stop must be over before the usual hard kill of a process manager (`docker stop` and systemd's default
 * TimeoutStopSec wait 10 s before SIGKILL): at this point the process logs what is still stopping and exits anyway.
 */
export const STOP_DEADLINE_MS = 9_000;

/**
 * On SIGTERM or SIGINT, runs every part's stop at once and then `last` (closing what the parts used, such as the
 * database), and exits 0 (1 if one of them failed). If that is not done within `deadlineMs`, logs the parts still
 * stopping and exits 1. A second signal while stopping changes nothing.
 */
export function stopOnSignals(options: {
  log: Logger;
  parts: Record<string, () => Promise<unknown>>;
  last?: () => Promise<unknown>;
  deadlineMs?: number;
}): void {
  const { log } = options;
  const deadlineMs = options.deadlineMs ?? STOP_DEADLINE_MS;
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    const started = Date.now();
    log.info({ signal }, "shutting down");
    const pending = new Set(Object.keys(options.parts));
    let failed = false;
    const deadline = setTimeout(() => {
      log.error(
        { signal, pending: [...pending], afterMs: Date.now() - started },
        `shutdown not done within ${deadlineMs / 1000} s (still stopping: ${[...pending].join(", ") || "closing"}); forcing exit`,
      );
      process.exit(1);
    }, deadlineMs);
    const parts = Object.entries(options.parts).map(async ([name, part]) => {
      try {
        await part();
      } catch (error) {
        failed = true;
        log.error({ err: error, part: name }, "a part failed to stop");
      } finally {
        pending.delete(name);
      }
    });
    void Promise.all(parts)
      .then(() => options.last?.())
      .catch((error: unknown) => {
        failed = true;
        log.error({ err: error }, "closing failed");
      })
      .finally(() => {
        clearTimeout(deadline);
        log.info({ signal, ms: Date.now() - started }, "stopped");
        process.exit(failed ? 1 : 0);
      });
  };
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => stop("SIGINT"));
}
