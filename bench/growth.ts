// What a send and a listing call cost as an account's history grows, and how much memory the server and its worker
// hold after a million sends, against the real server.
//   npm run bench:growth -- [--db sqlite|postgresql] [--sizes 10000,100000,1000000,5000000] [--seconds 10]
//                           [--rate 1000] [--samples 30] [--memory-sends 1000000] [--only sizes,memory]
// Sizes: one account's history is seeded up to each size in turn (the service's own multi-row insert, 60 days of
// mixed traffic; the server stopped meanwhile), then the server is started again as after a restart (worker off, as
// bench:listing runs it), and measured: the listing calls' first and p95 times, then sends at a steady --rate and at
// saturation (50 connections) for --seconds each, with the server process's CPU time per send. The rows the sends
// added are deleted before the next size, so that every size is exact.
// Memory: a fresh database, the server as `npm start` runs it (worker process on, the simulator carrier), --memory-sends
// single-destination sends at saturation rotating over 3,000 `from` numbers; the resident memory of the server and of
// the worker process, sampled every 5 s, until every message is delivered.
// The databases are bench/data/growth.db and growth-memory.db (SQLite) or parley_bench_growth(_memory) (PostgreSQL),
// made afresh by every run; the figures go to bench/results/growth-<db>.json.
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import pg from "pg";
import { startServer, type RunningServer } from "../tests/helpers/server";
import { createTestAccount, releaseFactories, type TestAccount } from "../tests/helpers/factories";
import type { TestDatabase } from "../tests/helpers/test-database";
import { seedMessages } from "../tests/helpers/seed-messages";
import { db } from "../lib/db/client";
import { warmFetch } from "./warm-fetch";
import { machineCaption, percentile } from "./figures";

const { values } = parseArgs({
  options: {
    db: { type: "string", default: "sqlite" },
    sizes: { type: "string", default: "10000,100000,1000000,5000000" },
    seconds: { type: "string", default: "10" },
    rate: { type: "string", default: "1000" },
    samples: { type: "string", default: "30" },
    "memory-sends": { type: "string", default: "1000000" },
    only: { type: "string", default: "sizes,memory" },
  },
});
process.env.PARLEY_TEST_DB = values.db;
const sizes = values.sizes.split(",").map(Number);
const seconds = Number(values.seconds);
const steadyRate = Number(values.rate);
const samples = Number(values.samples);
const memorySends = Number(values["memory-sends"]);
if (sizes.some((size, i) => !(size > 0) || (i > 0 && size <= sizes[i - 1]!)))
  throw new Error("--sizes: positive whole numbers, smallest first");
const ADMIN_URL = process.env.PARLEY_TEST_PG_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";
const machine = machineCaption(values.db);
const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A fresh database of the bench's own, kept after the run for a look. */
async function freshDatabase(name: string): Promise<TestDatabase> {
  if (values.db === "sqlite") {
    mkdirSync(join("bench", "data"), { recursive: true });
    const file = join(process.cwd(), "bench", "data", `${name}.db`);
    for (const suffix of ["", "-wal", "-shm"]) rmSync(file + suffix, { force: true });
    return { provider: "sqlite", url: `file:${file}`, drop: async () => {} };
  }
  const database = `parley_bench_${name.replace(/-/g, "_")}`;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${database}`);
  await admin.end();
  const url = new URL(ADMIN_URL);
  url.pathname = `/${database}`;
  return { provider: "postgresql", url: url.toString(), drop: async () => {} };
}

// --- a process's CPU time and memory, from the kernel's accounting -------------------------------------------------

const TICKS = Number(execFileSync("getconf", ["CLK_TCK"]).toString().trim()) || 100;

/** CPU time (user + system, every thread) of a process so far, in ms. */
function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS;
}

/** Resident memory now and at its peak, in MiB. */
function memoryMiB(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kib = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+)`, "m").exec(status)?.[1] ?? 0);
  return { rss: round(kib("VmRSS") / 1024, 0), peak: round(kib("VmHWM") / 1024, 0) };
}

/** The server's child processes (the delivery worker). */
function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

// --- listing ------------------------------------------------------------------------------------------------------

async function timed(server: RunningServer, path: string, headers: Record<string, string>) {
  const started = performance.now();
  const response = await fetch(server.baseUrl + path, { headers, signal: AbortSignal.timeout(120_000) });
  const json = (await response.json()) as { statusCode: number; data?: { total?: number } };
  if (json.statusCode !== 200) throw new Error(`${path}: ${JSON.stringify(json)}`);
  return performance.now() - started;
}

/** The listing calls a user makes, on an account of `size` messages: first call (after a restart) and p95. */
async function listing(server: RunningServer, account: TestAccount, size: number) {
  const accountId = account.accountId;
  const sample = await db().message.findFirst({
    where: { accountId, referenceId: { not: null } },
    orderBy: { createdAt: "desc" },
    skip: Math.min(5000, Math.floor(size / 50)),
  });
  const deep = await db().message.findFirst({
    where: { accountId },
    orderBy: { createdAt: "desc" },
    skip: Math.floor(size / 10),
  });
  const day = sample!.createdAt.toISOString().slice(0, 10);
  const base = `/v3/messages?accountId=${accountId}`;
  const queries: [string, string][] = [
    ["default page", base],
    ["referenceId", `${base}&referenceId=${sample!.referenceId}`],
    ["from", `${base}&from=${account.numbers[0]}`],
    ["to", `${base}&to=${sample!.toNumber}`],
    ["status=failed", `${base}&status=failed`],
    ["direction=inbound", `${base}&direction=inbound`],
    ["one day (timestampBegin+End)", `${base}&timestampBegin=${day}&timestampEnd=${day}T23:59:59Z`],
    ["body: common word", `${base}&body=shipped`],
    ["body: rare text", `${base}&body=user_4324.`],
    ["sortBy=status", `${base}&sortBy=status&sortDir=asc`],
    ["start at 90 % depth", `${base}&start=${Math.floor(size * 0.9)}`],
    ["after a cursor 10 % deep", `${base}&after=${deep!.id}`],
    ["GET /v3/sdrs", `/v3/sdrs/${accountId}/${sample!.id}`],
  ];
  await warmFetch();
  const rows: Record<string, { first: number; p95: number }> = {};
  for (const [name, path] of queries) {
    const first = await timed(server, path, account.headers);
    const times: number[] = [];
    for (let i = 0; i < samples; i++) times.push(await timed(server, path, account.headers));
    times.sort((a, b) => a - b);
    rows[name] = { first: round(first), p95: round(percentile(times, 95)) };
  }
  return rows;
}

// --- sends --------------------------------------------------------------------------------------------------------

interface SendFigures {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  cpuMsPerSend: number;
  errors: number;
}

/** Single-destination sends with a body of their own, at `rate` (or saturation), with the server's CPU per send. */
async function sends(server: RunningServer, account: TestAccount, rate?: number): Promise<SendFigures> {
  let n = 0;
  const requests: autocannon.Request[] = [
    {
      setupRequest: (req) => {
        n++;
        const body = {
          accountId: account.accountId,
          from: account.numbers[n % account.numbers.length],
          to: `1415${String(3_000_000 + (n % 1_000_000)).padStart(7, "0")}`,
          body: `Growth ${n}: your code is ${100000 + (n % 900000)}`,
        };
        return { ...req, body: JSON.stringify(body) };
      },
    },
  ];
  const cpuBefore = cpuMs(server.process.pid!);
  const result = await autocannon({
    url: `${server.baseUrl}/v3/messages`,
    method: "POST",
    headers: account.headers,
    requests,
    connections: rate ? Math.max(4, Math.ceil(rate / 40)) : 50,
    duration: seconds,
    overallRate: rate,
  });
  const ok = result["2xx"];
  return {
    requestsPerSecond: Math.round(ok / result.duration),
    p50: result.latency.p50,
    p99: result.latency.p99,
    cpuMsPerSend: round((cpuMs(server.process.pid!) - cpuBefore) / Math.max(1, ok), 3),
    errors: result.errors + result.non2xx + result.timeouts,
  };
}

/** 2,000 sends first, so that a step measures the server warm (its statements prepared, its code optimized). */
async function warmUp(server: RunningServer, account: TestAccount): Promise<void> {
  await autocannon({
    url: `${server.baseUrl}/v3/messages`,
    method: "POST",
    headers: account.headers,
    connections: 10,
    amount: 2000,
    body: JSON.stringify({
      accountId: account.accountId,
      from: account.numbers[0],
      to: "14155551234",
      body: "Warm-up",
    }),
  });
}

/** Waits until the server's background counting (SQLite's body index and tally) has every row. */
async function caughtUp(): Promise<number> {
  const started = performance.now();
  if (values.db === "postgresql") {
    // What autovacuum does after a bulk load (this machine's test cluster runs without it).
    await db().$executeRawUnsafe('VACUUM ANALYZE "Message"');
    return round((performance.now() - started) / 1000);
  }
  for (;;) {
    const [state] = await db().$queryRawUnsafe<
      { body: number | bigint; tally: number | bigint; top: number | bigint }[]
    >(
      'SELECT (SELECT "indexedUpTo" FROM "MessageBodySearchState") AS body, (SELECT "talliedUpTo" FROM "MessageTallyState") AS tally, (SELECT max(rowid) FROM "Message") AS top',
    );
    if (Number(state!.body) >= Number(state!.top) && Number(state!.tally) >= Number(state!.top))
      return round((performance.now() - started) / 1000);
    await sleep(500);
  }
}

async function growthBySize() {
  const database = await freshDatabase("growth");
  const start = () => startServer({ database, env: { LOG_LEVEL: "warn" } });
  let server = await start();
  const account = await createTestAccount(server, { numbers: 20, rateLimitPerSecond: 100_000 });
  const results: {
    size: number;
    seedSeconds: number;
    catchUpSeconds: number;
    serverMiB: { rss: number; peak: number };
    listing: Awaited<ReturnType<typeof listing>>;
    steady: SendFigures;
    saturation: SendFigures;
  }[] = [];
  try {
    for (const size of sizes) {
      await server.stop();
      const stored = await db().message.count({ where: { accountId: account.accountId } });
      const seedStarted = performance.now();
      await seedMessages(account.accountId, account.numbers, size - stored);
      const seedSeconds = round((performance.now() - seedStarted) / 1000);
      server = await start();
      const catchUpSeconds = await caughtUp();
      console.log(`${size} messages: seeded in ${seedSeconds} s, counted in the background in ${catchUpSeconds} s`);
      const listed = await listing(server, account, size);
      const mark = new Date();
      await warmUp(server, account);
      const steady = await sends(server, account, steadyRate);
      const saturation = await sends(server, account);
      const serverMiB = memoryMiB(server.process.pid!);
      results.push({ size, seedSeconds, catchUpSeconds, serverMiB, listing: listed, steady, saturation });
      console.log(JSON.stringify(results.at(-1)));
      // Back to the exact size for the next step.
      await db().message.deleteMany({ where: { accountId: account.accountId, createdAt: { gte: mark } } });
    }
  } finally {
    await server.stop();
  }

  const label = (size: number) => (size >= 1_000_000 ? `${size / 1_000_000}M` : `${size / 1000}k`);
  console.log(`\nGrowth — ${machine}; sends for ${seconds} s at ${steadyRate}/s and at saturation (50 connections)\n`);
  console.log(
    "| messages | steady: req/s | p50 ms | p99 ms | CPU ms a send | saturation: req/s | p50 ms | p99 ms | CPU ms a send | server RSS MiB |",
  );
  console.log("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
  for (const r of results)
    console.log(
      `| ${label(r.size)} | ${r.steady.requestsPerSecond} | ${r.steady.p50} | ${r.steady.p99} | ${r.steady.cpuMsPerSend} | ${r.saturation.requestsPerSecond} | ${r.saturation.p50} | ${r.saturation.p99} | ${r.saturation.cpuMsPerSend} | ${r.serverMiB.rss} |`,
    );
  const errors = results.reduce((sum, r) => sum + r.steady.errors + r.saturation.errors, 0);
  console.log(`\nfailed sends: ${errors}`);
  console.log(`\nGET /v3/messages — first call after a restart / p95 of ${samples}, ms\n`);
  console.log(`| query | ${results.map((r) => label(r.size)).join(" | ")} |`);
  console.log(`|---|${results.map(() => "---:").join("|")}|`);
  for (const name of Object.keys(results[0]?.listing ?? {}))
    console.log(
      `| ${name} | ${results.map((r) => `${r.listing[name]!.first} / ${r.listing[name]!.p95}`).join(" | ")} |`,
    );
  return results;
}

// --- memory after a million sends --------------------------------------------------------------------------------

async function memoryAfterSends() {
  const database = await freshDatabase("growth-memory");
  const server = await startServer({
    database,
    env: { LOG_LEVEL: "warn", PARLEY_WORKER: "true", SIMULATOR_RECEIPT_DELAY_MS: "1000" },
  });
  const NUMBERS = 3000;
  const samplesTaken: { seconds: number; accepted: number; server: number; worker: number }[] = [];
  try {
    const account = await createTestAccount(server, { numbers: NUMBERS, rateLimitPerSecond: 100_000 });
    const pid = server.process.pid!;
    const worker = () => childrenOf(pid).find((child) => /worker/.test(readFileSync(`/proc/${child}/cmdline`, "utf8")));
    const before = { server: memoryMiB(pid), worker: memoryMiB(worker() ?? pid) };
    let n = 0;
    const started = performance.now();
    const sampler = setInterval(() => {
      const w = worker();
      samplesTaken.push({
        seconds: round((performance.now() - started) / 1000, 0),
        accepted: n,
        server: memoryMiB(pid).rss,
        worker: w ? memoryMiB(w).rss : 0,
      });
      const last = samplesTaken.at(-1)!;
      if (last.seconds % 60 < 5)
        console.log(`  ${last.seconds} s: ${last.accepted} sent, server ${last.server} MiB, worker ${last.worker} MiB`);
    }, 5000);
    const result = await autocannon({
      url: `${server.baseUrl}/v3/messages`,
      method: "POST",
      headers: account.headers,
      connections: 50,
      amount: memorySends,
      requests: [
        {
          setupRequest: (req) => {
            n++;
            const body = {
              accountId: account.accountId,
              from: account.numbers[n % NUMBERS],
              // Destinations ending in 1000–9999: none of the simulator's numbers that fail or never answer.
              to: `1415555${1000 + (n % 9000)}`,
              body: `Your code is ${n}. Reply STOP to opt out.`,
            };
            return { ...req, body: JSON.stringify(body) };
          },
        },
      ],
    });
    const acceptedSeconds = round((performance.now() - started) / 1000);
    const afterSends = { server: memoryMiB(pid), worker: memoryMiB(worker() ?? pid) };
    for (;;) {
      const open = await db().message.count({
        where: { accountId: account.accountId, status: { in: ["queued", "sending", "sent"] } },
      });
      if (open === 0) break;
      await sleep(5000);
    }
    clearInterval(sampler);
    const deliveredSeconds = round((performance.now() - started) / 1000);
    const afterDelivery = { server: memoryMiB(pid), worker: memoryMiB(worker() ?? pid) };
    await sleep(30_000);
    const settled = { server: memoryMiB(pid), worker: memoryMiB(worker() ?? pid) };
    const figures = {
      sends: memorySends,
      accepted: result["2xx"],
      errors: result.errors + result.non2xx + result.timeouts,
      acceptedSeconds,
      deliveredSeconds,
      before,
      afterSends,
      afterDelivery,
      settled,
    };
    console.log(`\nMemory — ${machine}; ${memorySends} sends, worker on (simulator), ${NUMBERS} numbers\n`);
    console.log(
      `accepted ${figures.accepted} (${figures.errors} failed) in ${acceptedSeconds} s; all delivered after ${deliveredSeconds} s\n`,
    );
    console.log("| when | server RSS MiB | server peak MiB | worker RSS MiB | worker peak MiB |");
    console.log("|---|---:|---:|---:|---:|");
    for (const [when, m] of [
      ["before the sends", before],
      ["after the last send was accepted", afterSends],
      ["after the last was delivered", afterDelivery],
      ["30 s later", settled],
    ] as const)
      console.log(`| ${when} | ${m.server.rss} | ${m.server.peak} | ${m.worker.rss} | ${m.worker.peak} |`);
    return { ...figures, samples: samplesTaken };
  } finally {
    await server.stop();
  }
}

async function main() {
  const only = values.only.split(",");
  const out: Record<string, unknown> = { machine, date: new Date().toISOString() };
  try {
    if (only.includes("sizes")) out.sizes = await growthBySize();
    await releaseFactories();
    if (only.includes("memory")) out.memory = await memoryAfterSends();
  } finally {
    await releaseFactories();
  }
  mkdirSync("bench/results", { recursive: true });
  writeFileSync(`bench/results/growth-${values.db}.json`, JSON.stringify(out, null, 2));
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
