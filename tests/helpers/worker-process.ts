import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { join } from "node:path";

const root = join(import.meta.dirname, "..", "..");

export interface WorkerExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface WorkerProcess {
  /** The worker id it announced (`host:pid:hex`), as PhoneNumber.leaseOwner shows it. */
  id: string;
  /** The pid of the process it was started as, which leads the process group the worker runs in. */
  pid: number;
  process: ChildProcess;
  /** Everything it wrote on stdout and stderr so far (its JSON logs). */
  output(): string;
  /** Log lines at level error or above (pino level ≥ 50). */
  errors(): string[];
  exited: Promise<WorkerExit>;
  /** Sends a signal to the process started, as `kill <pid>` or a container runtime would. */
  signal(signal: NodeJS.Signals): void;
  /**
   * Sends a signal to the node process running the worker itself (its pid is in its id): the process started, as
   * `npm run worker` execs node; a launcher in between (such as tsx's, which kills a child that does not acknowledge
   * a relayed signal within some 30 ms) would not get it.
   */
  signalWorker(signal: NodeJS.Signals): void;
  /** Sends a signal to the whole process group (the worker and anything it started). */
  signalGroup(signal: NodeJS.Signals): void;
  /** SIGTERM, then SIGKILL of the whole group if it has not exited after `graceMs`. */
  stop(graceMs?: number): Promise<WorkerExit>;
}

const spawned = new Set<WorkerProcess>();

/**
 * Starts the worker's bundle (.next/parley/worker.mjs, built by `npm test`'s build step) as `npm run worker` does, in
 * a process group of its own so that it can be killed as a whole, and resolves once it printed PARLEY_WORKER_READY.
 */
export async function startWorker(databaseUrl: string, env: Record<string, string> = {}): Promise<WorkerProcess> {
  const child = spawn(process.execPath, [join(root, ".next/parley/worker.mjs")], {
    cwd: root,
    env: {
      ...process.env,
      NODE_ENV: "production",
      DATABASE_URL: databaseUrl,
      LOG_LEVEL: process.env.PARLEY_TEST_LOG_LEVEL ?? "warn",
      PARLEY_READY_FD: "stdout",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let output = "";
  const exited = new Promise<WorkerExit>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal: signal as NodeJS.Signals | null })),
  );
  const launcherRunning = () => child.exitCode === null && child.signalCode === null;
  // The group is ours while the launcher runs, or while the worker it started is still in it (its pid is in its id).
  const groupAlive = () => launcherRunning() || inGroup(workerPid(worker.id), child.pid!);
  const group = (signal: NodeJS.Signals) => {
    if (!groupAlive()) return;
    try {
      process.kill(-child.pid!, signal);
    } catch {
      // the group is gone already
    }
  };
  const worker: WorkerProcess = {
    id: "",
    pid: child.pid!,
    process: child,
    output: () => output,
    errors: () =>
      output.split("\n").filter((line) => {
        try {
          return (JSON.parse(line) as { level?: number }).level! >= 50;
        } catch {
          return false;
        }
      }),
    exited,
    signal: (signal) => {
      if (launcherRunning()) child.kill(signal);
    },
    signalWorker: (signal) => {
      const pid = workerPid(worker.id);
      if (pid !== null && inGroup(pid, child.pid!)) process.kill(pid, signal);
    },
    signalGroup: group,
    async stop(graceMs = 10_000) {
      group("SIGTERM");
      const timer = setTimeout(() => group("SIGKILL"), graceMs);
      const exit = await exited;
      clearTimeout(timer);
      // The launcher may be gone while the worker itself lingers; nothing of the group may outlive a test.
      group("SIGKILL");
      return exit;
    },
  };
  spawned.add(worker);
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  worker.id = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`worker did not start within 60 s:\n${output}`)), 60_000);
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`worker exited with ${code ?? signal} before it was ready:\n${output}`));
    });
    createInterface({ input: child.stdout! }).on("line", (line) => {
      output += line + "\n";
      const ready = /^PARLEY_WORKER_READY (\S+)$/.exec(line);
      if (ready) {
        clearTimeout(timer);
        resolve(ready[1]!);
      }
    });
  });
  return worker;
}

/** The worker's own pid, from its id `host:pid:hex`. */
function workerPid(id: string): number | null {
  const pid = Number(id.split(":").at(-2));
  return Number.isInteger(pid) && pid > 0 ? pid : null;
}

/** Whether process `pid` is alive and in process group `pgid` (Linux /proc; false where that cannot be read). */
function inGroup(pid: number | null, pgid: number): boolean {
  if (pid === null) return false;
  try {
    // /proc/<pid>/stat: "pid (comm) state ppid pgrp …"; comm may hold spaces, so read after the last ')'.
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return fields[0] !== "Z" && Number(fields[2]) === pgid;
  } catch {
    return false;
  }
}

/** Kills every worker this process started that is still running, with its whole process group. */
export async function killAllWorkers(): Promise<void> {
  await Promise.all(
    [...spawned].map(async (worker) => {
      worker.signalGroup("SIGKILL");
      await Promise.race([worker.exited, new Promise((resolve) => setTimeout(resolve, 5_000))]);
      spawned.delete(worker);
    }),
  );
}
