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
      exitWhenLogged(log, 1);
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
        exitWhenLogged(log, failed ? 1 : 0);
      });
  };
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => stop("SIGINT"));
}

/** How long an exit waits for the last log lines to be written. */
const LOG_FLUSH_MS = 1_000;

/**
 * Exits once the log lines written so far are out: pino writes asynchronously, and what it still holds at
 * `process.exit` is written in one try that a full pipe (a slow reader of the logs, a busy machine) refuses, so the
 * lines saying how the stop went would be lost. Waits at most LOG_FLUSH_MS.
 */
function exitWhenLogged(log: Logger, code: number): void {
  const exit = () => process.exit(code);
  process.exitCode = code;
  setTimeout(exit, LOG_FLUSH_MS).unref();
  try {
    log.flush(() => exit());
  } catch {
    exit();
  }
}
