import { spawn, type ChildProcess } from "node:child_process";
import { basename, dirname, join } from "node:path";
import type { MetricObjectWithValues, MetricValue } from "prom-client";
import type { Logger } from "../log";

// The delivery worker of a server (PARLEY_WORKER=true, the default): `worker/main.ts` in a process of its own,
// started, watched and stopped by the server. Submits, receipts, SDR writes, webhook posts and retention then run on
// another event loop (and, on two cores, another core) than the HTTP server's, so a busy delivery round does not
// hold up the event loop that answers requests. It is the same program as `npm run worker`; the server talks to it
// over Node's IPC channel: `ready` once it works, its metrics when /metrics is scraped, a wake-up for the live view
// when it wrote changes. When the server goes away, however it ends, the channel closes and the worker stops
// cleanly by itself.

/** A process's metrics as prom-client hands them over (`Registry.getMetricsAsJSON`). */
export type MetricSeries = MetricObjectWithValues<MetricValue<string>>[];

export type WorkerMessage =
  | { type: "ready"; workerId: string }
  /** It wrote SDRs: the server's live view reads them at once instead of at its next poll. */
  | { type: "changes" }
  | { type: "metrics"; requestId: number; metrics: MetricSeries };

export interface WorkerChild {
  /** The worker's own series (parts submitted, receipts, webhooks, its Node figures); null if it cannot answer now. */
  metrics(timeoutMs?: number): Promise<MetricSeries | null>;
  /** Asks the worker to stop (SIGTERM: it gives its numbers back) and waits for it to exit. */
  stop(): Promise<void>;
  /**
   * The port the server listens on, once it does (with PORT=0 it is known only then): without PUBLIC_URL, the
   * connections' callback URLs the worker gives providers are this server's address.
   */
  listening(port: number): void;
}

/** How long the worker may take to start before the server gives up (it loads the same code as the server). */
const START_TIMEOUT_MS = 60_000;
/** After an unexpected exit: wait this long before starting it again, doubling up to a minute while it keeps failing. */
const RESTART_DELAYS_MS = [1_000, 2_000, 5_000, 15_000, 60_000];
/** A worker that ran this long before failing starts again after the first delay. */
const STABLE_MS = 60_000;

/**
 * The worker's program, with the same Node flags as this process: the worker's bundle beside the server's own when the
 * server runs from its bundle (`npm start`: .next/parley/server.mjs), else its source (`npm run dev`, under tsx).
 */
function workerEntry(): string {
  const main = process.argv[1] ?? "";
  return basename(main) === "server.mjs" ? join(dirname(main), "worker.mjs") : join(process.cwd(), "worker", "main.ts");
}

/**
 * Starts the worker and resolves once it reports ready. A worker that exits before its first `ready` fails the
 * start (with what it wrote on stderr before dying, which the server's own output shows as well); one that exits
 * later is started again after a delay, and said so in the log.
 */
export async function startWorkerChild(log: Logger, options: { onChanges?: () => void } = {}): Promise<WorkerChild> {
  let child: ChildProcess | null = null;
  let stopping = false;
  let failures = 0;
  let restartTimer: NodeJS.Timeout | null = null;
  let nextRequest = 1;
  const pending = new Map<number, (metrics: MetricSeries | null) => void>();
  let serverPort: number | null = null;

  const spawnOnce = (): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      const startedAt = Date.now();
      const env: NodeJS.ProcessEnv = { ...process.env, PARLEY_WORKER_OF_SERVER: String(process.pid) };
      if (serverPort !== null) env.PARLEY_SERVER_PORT = String(serverPort);
      // Its readiness and metrics come over IPC; the server's own /metrics serves them.
      delete env.PARLEY_READY_FD;
      delete env.METRICS_WORKER_PORT;
      const proc = spawn(process.execPath, [...process.execArgv, workerEntry()], {
        cwd: process.cwd(),
        env,
        stdio: ["ignore", "inherit", "inherit", "ipc"],
      });
      child = proc;
      let ready = false;
      const timer = setTimeout(() => {
        if (ready) return;
        proc.kill("SIGKILL");
        reject(new Error(`the delivery worker did not start within ${START_TIMEOUT_MS / 1000} s`));
      }, START_TIMEOUT_MS);
      proc.on("message", (message: WorkerMessage) => {
        if (message.type === "ready") {
          ready = true;
          clearTimeout(timer);
          log.info({ pid: proc.pid, workerId: message.workerId }, "delivery worker process ready");
          resolve();
        } else if (message.type === "changes") {
          options.onChanges?.();
        } else if (message.type === "metrics") {
          pending.get(message.requestId)?.(message.metrics);
          pending.delete(message.requestId);
        }
      });
      proc.on("error", (error) => {
        clearTimeout(timer);
        if (!ready) reject(new Error(`the delivery worker could not be started: ${error.message}`));
      });
      proc.on("exit", (code, signal) => {
        clearTimeout(timer);
        if (child === proc) child = null;
        for (const answer of pending.values()) answer(null);
        pending.clear();
        if (!ready) {
          reject(new Error(`the delivery worker exited (${signal ?? `code ${code}`}) before it was ready`));
          return;
        }
        if (stopping) return;
        failures = Date.now() - startedAt > STABLE_MS ? 1 : failures + 1;
        const delay = RESTART_DELAYS_MS[Math.min(failures - 1, RESTART_DELAYS_MS.length - 1)]!;
        log.error(
          { pid: proc.pid, code, signal, restartInMs: delay },
          "the delivery worker process exited; starting it again",
        );
        restartTimer = setTimeout(() => {
          restartTimer = null;
          if (stopping) return;
          spawnOnce().catch((error: Error) => {
            log.error({ err: error }, "the delivery worker process could not be started again");
          });
        }, delay);
      });
    });

  await spawnOnce();

  return {
    listening(port) {
      serverPort = port;
      if (child?.connected) child.send({ type: "listening", port });
    },
    metrics(timeoutMs = 2_000) {
      const proc = child;
      if (!proc?.connected) return Promise.resolve(null);
      return new Promise((resolve) => {
        const requestId = nextRequest++;
        const timer = setTimeout(() => {
          pending.delete(requestId);
          resolve(null);
        }, timeoutMs);
        pending.set(requestId, (metrics) => {
          clearTimeout(timer);
          resolve(metrics);
        });
        proc.send({ type: "metrics", requestId }, (error) => {
          if (!error) return;
          clearTimeout(timer);
          pending.delete(requestId);
          resolve(null);
        });
      });
    },
    async stop() {
      stopping = true;
      if (restartTimer) clearTimeout(restartTimer);
      const proc = child;
      if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => proc.once("exit", () => resolve()));
      proc.kill("SIGTERM");
      await exited;
    },
  };
}
