import { execFileSync, spawnSync, type SpawnSyncOptions } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";

// A PostgreSQL cluster of the suite's own (initdb + pg_ctl in a temporary directory, its own port on 127.0.0.1,
// trust authentication), so that it can be stopped and started under load without touching the server every other
// test uses. PostgreSQL refuses to run as root: when the tests do, the cluster runs as the `postgres` user that
// Debian's packages create.

export interface PgCluster {
  port: number;
  /** A database of this cluster, created with createDatabase(). */
  url(database: string): string;
  createDatabase(name: string): Promise<void>;
  /** pg_ctl stop (-m immediate: the postmaster and its backends are killed at once, as in a crash). */
  stop(mode?: "immediate" | "fast"): void;
  /** pg_ctl start, waiting until it accepts connections (after crash recovery, if it crashed). */
  start(): void;
  /** Stops the cluster and removes its directory. */
  destroy(): void;
}

/** The newest PostgreSQL server binaries installed (Debian: /usr/lib/postgresql/<version>/bin). */
function findBinaries(): string {
  const base = "/usr/lib/postgresql";
  const versions = existsSync(base)
    ? readdirSync(base)
        .filter((v) => existsSync(join(base, v, "bin", "initdb")) && existsSync(join(base, v, "bin", "pg_ctl")))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (versions.length === 0) {
    throw new Error(
      "The fault suite starts a PostgreSQL cluster of its own and needs initdb and pg_ctl under " +
        "/usr/lib/postgresql/<version>/bin (Debian: apt-get install postgresql)",
    );
  }
  return join(base, versions[0]!, "bin");
}

/** uid and gid of `postgres` when running as root (initdb refuses root), else nothing to change. */
function runAs(): { uid: number; gid: number } | null {
  if (process.getuid?.() !== 0) return null;
  const line = readFileSync("/etc/passwd", "utf8")
    .split("\n")
    .find((l) => l.startsWith("postgres:"));
  if (!line) throw new Error("running as root, and there is no `postgres` user to run a PostgreSQL cluster as");
  const [, , uid, gid] = line.split(":");
  return { uid: Number(uid), gid: Number(gid) };
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export async function startPgCluster(): Promise<PgCluster> {
  const bin = findBinaries();
  const user = runAs();
  const dir = mkdtempSync(join(tmpdir(), "parley-faults-pg-"));
  if (user) chownSync(dir, user.uid, user.gid);
  const data = join(dir, "data");
  const log = join(dir, "postgresql.log");
  const options: SpawnSyncOptions = { ...(user ?? {}), cwd: dir, encoding: "utf8", timeout: 60_000 };
  const run = (tool: string, args: string[]) => {
    const result = spawnSync(join(bin, tool), args, options);
    if (result.status !== 0) {
      const logText = existsSync(log) ? readFileSync(log, "utf8").slice(-3000) : "";
      throw new Error(`${tool} ${args.join(" ")} failed: ${result.stderr || result.error?.message}\n${logText}`);
    }
  };
  run("initdb", ["-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync"]);
  const port = await freePort();
  // fsync off: a crash of PostgreSQL (stop -m immediate) keeps what was written to the kernel, which is what this
  // suite tests; only a crash of the machine would need the flushes.
  const serverOptions = [
    `-p ${port}`,
    "-c listen_addresses=127.0.0.1",
    `-c unix_socket_directories=${dir}`,
    "-c max_connections=200",
    "-c fsync=off",
    "-c shared_buffers=32MB",
  ].join(" ");
  const start = () => run("pg_ctl", ["-D", data, "-l", log, "-o", serverOptions, "-w", "-t", "60", "start"]);
  start();
  let stopped = false;
  const stopNow = (mode: string) => spawnSync(join(bin, "pg_ctl"), ["-D", data, "-m", mode, "-w", "stop"], options);
  // Whatever happens to the test process, the cluster does not outlive it.
  const onExit = () => stopNow("immediate");
  process.once("exit", onExit);

  return {
    port,
    url: (database) => `postgresql://postgres@127.0.0.1:${port}/${database}`,
    async createDatabase(name) {
      const client = new pg.Client({ connectionString: `postgresql://postgres@127.0.0.1:${port}/postgres` });
      await client.connect();
      await client.query(`CREATE DATABASE ${name}`);
      await client.end();
    },
    stop(mode = "immediate") {
      run("pg_ctl", ["-D", data, "-m", mode, "-w", "stop"]);
    },
    start,
    destroy() {
      if (stopped) return;
      stopped = true;
      process.removeListener("exit", onExit);
      stopNow("immediate");
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The version of the PostgreSQL server binaries the cluster runs. */
export function postgresVersion(): string {
  return execFileSync(join(findBinaries(), "postgres"), ["--version"], { encoding: "utf8" }).trim();
}
