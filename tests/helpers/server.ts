import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import { join } from "node:path";
import { createTestDatabase, type TestDatabase } from "./test-database";

const root = join(import.meta.dirname, "..", "..");

export interface RunningServer {
  baseUrl: string;
  port: number;
  database: TestDatabase;
  process: ChildProcess;
  /** Everything the server wrote on stdout and stderr so far (its JSON logs). */
  output(): string;
  stop(): Promise<void>;
}

/**
 * Starts the real server (its bundle, .next/parley/server.mjs, and the production Next build, both made by
 * `npm test`'s build step) on a free port against a fresh database, exactly as `npm start` would, minus the demo
 * account and (unless asked for) the delivery worker. The server runs in the spawned process itself, as `npm start`
 * execs node, so that a signal sent to `process` reaches the server as a process manager's would.
 */
export async function startServer(
  options: { env?: Record<string, string>; database?: TestDatabase } = {},
): Promise<RunningServer> {
  const database = options.database ?? (await createTestDatabase());
  const child = spawn(process.execPath, [join(root, ".next/parley/server.mjs")], {
    cwd: root,
    env: {
      ...process.env,
      NODE_ENV: "production",
      PORT: "0",
      HOST: "127.0.0.1",
      DATABASE_URL: database.url,
      PARLEY_DEMO: "false",
      // API suites check the contract up to `queued`; delivery suites turn the worker on.
      PARLEY_WORKER: "false",
      LOG_LEVEL: process.env.PARLEY_TEST_LOG_LEVEL ?? "warn",
      PARLEY_READY_FD: "stdout",
      NEXT_TELEMETRY_DISABLED: "1",
      ...options.env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start within 60 s:\n${output}`)), 60_000);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code} before it was ready:\n${output}`));
    });
    createInterface({ input: child.stdout! }).on("line", (line) => {
      output += line + "\n";
      const ready = /^PARLEY_READY (\d+)$/.exec(line);
      if (ready) {
        clearTimeout(timer);
        resolve(Number(ready[1]));
      }
    });
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  return {
    baseUrl,
    port,
    database,
    process: child,
    output: () => output,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once("exit", resolve));
        child.kill("SIGTERM");
        await exited;
      }
      if (!options.database) await database.drop();
    },
  };
}
