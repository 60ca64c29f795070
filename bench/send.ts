// Accepted sends per second and latency of POST /v3/messages against the real server, at fixed request rates
// and at saturation, for single- and 100-destination sends, beside a bare-Node baseline in the same run.
//   npm run bench:send -- [--db sqlite|postgresql] [--seconds 10] [--rates 500,1000,2000,3000]
//   npm run bench:send -- --worker 3000 [--db …] [--rates 1000,2000]: instead, the server as `npm start` runs it,
//   its delivery worker process on (the simulator carrier, receipts after 1 s), sends rotating over that many `from`
//   numbers (so that pacing lets the worker send as fast as they come) with a body of their own: the latency of
//   sends while the worker delivers, at the rates given and at saturation, and the parts it submitted meanwhile.
//   npm run bench:send -- --growth 200000 [--db …]: instead, keeps sending single-destination sends (50 connections)
//   until that many are stored, printing the rate and p99 of every 10,000, once with a body of its own per request
//   and once with one body for all (automatic bulk's count grows with it): the rate must not fall as rows pile up.
//   --daily-limit 100000000: the account has daily limits (guard rails), so every send takes its share of the day
//   in a statement of its own before its commit: the cost of that statement, beside a run without the option.
// Every accepted message is committed before its answer; the run ends by counting the rows to prove it.
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { mkdirSync, writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import { startServer } from "../tests/helpers/server";
import { createTestAccount, releaseFactories } from "../tests/helpers/factories";
import { db } from "../lib/db/client";
import { machineCaption } from "./figures";

const { values } = parseArgs({
  options: {
    db: { type: "string", default: "sqlite" },
    seconds: { type: "string", default: "10" },
    rates: { type: "string", default: "500,1000,2000,3000" },
    connections: { type: "string", default: "50" },
    growth: { type: "string" },
    worker: { type: "string" },
    "daily-limit": { type: "string" },
  },
});
process.env.PARLEY_TEST_DB = values.db;
const seconds = Number(values.seconds);
const connections = Number(values.connections);

interface Row {
  scenario: string;
  target: string;
  requestsPerSecond: number;
  messagesPerSecond: number;
  p50: number;
  p90: number;
  p99: number;
  errors: number;
}

/** The machine, for the tables' captions and the results files. */
const machine = machineCaption(values.db);

/** POST load for `seconds`: one fixed body, or `requests` that build each one. */
async function load(
  url: string,
  options: {
    body?: string;
    requests?: autocannon.Request[];
    headers: Record<string, string>;
    rate?: number;
    connections?: number;
  },
) {
  const result = await autocannon({
    url,
    method: "POST",
    body: options.body,
    requests: options.requests,
    headers: options.headers,
    connections:
      options.connections ??
      (options.rate ? Math.min(connections, Math.max(4, Math.ceil(options.rate / 40))) : connections),
    duration: seconds,
    overallRate: options.rate,
  });
  return result;
}

function row(scenario: string, target: string, result: autocannon.Result, perRequest: number): Row {
  const ok = result["2xx"];
  const duration = result.duration;
  return {
    scenario,
    target,
    requestsPerSecond: Math.round(ok / duration),
    messagesPerSecond: Math.round((ok * perRequest) / duration),
    p50: result.latency.p50,
    p90: result.latency.p90,
    p99: result.latency.p99,
    errors: result.errors + result.non2xx + result.timeouts,
  };
}

async function baseline(): Promise<{ port: number; stop: () => void }> {
  const child = spawn(process.execPath, ["bench/baseline-server.mjs"], { stdio: ["ignore", "pipe", "inherit"] });
  const port = await new Promise<number>((resolve) =>
    createInterface({ input: child.stdout! }).on("line", (line) => {
      const m = /^BASELINE_READY (\d+)$/.exec(line);
      if (m) resolve(Number(m[1]));
    }),
  );
  return { port, stop: () => child.kill("SIGTERM") };
}

const GROWTH_WINDOW = 10_000;

async function growth(total: number) {
  const server = await startServer({ env: { LOG_LEVEL: "warn" } });
  const results: Record<string, { stored: number; rate: number; p99: number; errors: number }[]> = {};
  try {
    for (const [name, body] of [
      ["distinct bodies", "Your code is "],
      ["one body", "Flash sale: everything half price today"],
    ] as const) {
      const distinct = name === "distinct bodies";
      // An account of its own per case, so that the second case's count starts at nothing.
      const account = await createTestAccount(server, { numbers: 1 });
      const request = { accountId: account.accountId, from: account.numbers[0], to: "14155550123", body };
      let sent = 0;
      console.log(`\n${name} (${machine}; ${connections} connections)\n`);
      console.log("| stored | sends/s | p99 ms | errors |");
      console.log("|---|---|---|---|");
      const rows: (typeof results)[string] = [];
      let stored = 0;
      while (stored < total) {
        const started = performance.now();
        const result = await autocannon({
          url: `${server.baseUrl}/v3/messages`,
          method: "POST",
          headers: account.headers,
          connections,
          amount: GROWTH_WINDOW,
          // A body of its own per request (autocannon's idReplacement keeps the template's content-length).
          requests: [
            {
              setupRequest: (req) => ({
                ...req,
                body: JSON.stringify(distinct ? { ...request, body: `${body}${++sent}` } : request),
              }),
            },
          ],
        });
        stored += result["2xx"];
        const row = {
          stored,
          // Timed here: autocannon's own duration is in whole seconds, too coarse for windows of a few seconds.
          rate: Math.round(result["2xx"] / ((performance.now() - started) / 1000)),
          p99: result.latency.p99,
          errors: result.errors + result.non2xx + result.timeouts,
        };
        rows.push(row);
        console.log(`| ${row.stored} | ${row.rate} | ${row.p99} | ${row.errors} |`);
      }
      const counted = await db().message.count({ where: { accountId: account.accountId } });
      const ratio = rows.at(-1)!.rate / rows[0]!.rate;
      console.log(
        `\nstored ${counted}; last window ${rows.at(-1)!.rate}/s vs first ${rows[0]!.rate}/s: ${ratio.toFixed(2)}×`,
      );
      results[name] = rows;
    }
    mkdirSync("bench/results", { recursive: true });
    writeFileSync(`bench/results/send-growth-${values.db}.json`, JSON.stringify({ machine, results }, null, 2));
  } finally {
    await releaseFactories();
    await server.stop();
  }
}

async function withWorker(numberCount: number) {
  const server = await startServer({
    env: { LOG_LEVEL: "warn", PARLEY_WORKER: "true", SIMULATOR_RECEIPT_DELAY_MS: "1000", WORKER_POLL_MS: "50" },
  });
  const rows: (Row & { partsPerSecond: number })[] = [];
  try {
    const account = await createTestAccount(server, { numbers: numberCount, rateLimitPerSecond: 100_000 });
    let sent = 0;
    const requests: autocannon.Request[] = [
      {
        setupRequest: (req) => {
          const n = ++sent;
          const body = {
            accountId: account.accountId,
            from: account.numbers[n % numberCount],
            to: `1415${String(2_000_000 + (n % 1_000_000)).padStart(7, "0")}`,
            body: `Your code is ${n}. Reply STOP to opt out.`,
          };
          return { ...req, body: JSON.stringify(body) };
        },
      },
    ];
    const url = `${server.baseUrl}/v3/messages`;
    const submitted = () => db().messagePart.count();
    // Warm-up, then let the worker catch up so that each step starts from an empty queue.
    await autocannon({ url, method: "POST", headers: account.headers, connections: 10, amount: 2000, requests });
    const drained = async () => {
      for (let i = 0; i < 120; i++) {
        if ((await db().message.count({ where: { status: { in: ["queued", "sending"] } } })) === 0) return;
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    };
    await drained();
    const steps: { target: string; rate?: number; connections?: number }[] = [
      ...values.rates.split(",").map((rate) => ({ target: `${rate} req/s`, rate: Number(rate) })),
      { target: `saturation, ${connections} connections`, connections },
    ];
    for (const step of steps) {
      const before = await submitted();
      const started = performance.now();
      const result = await load(url, {
        requests,
        headers: account.headers,
        rate: step.rate,
        connections: step.connections,
      });
      const parts = (await submitted()) - before;
      rows.push({
        ...row("send, 1 destination, worker delivering", step.target, result, 1),
        partsPerSecond: Math.round(parts / ((performance.now() - started) / 1000)),
      });
      await drained();
    }
    console.log(
      `\nPOST /v3/messages while the worker process delivers — ${machine}; ${numberCount} numbers; ${seconds} s per step\n`,
    );
    console.log("| load | accepted req/s | p50 ms | p90 ms | p99 ms | errors | parts submitted/s during the step |");
    console.log("|---|---|---|---|---|---|---|");
    for (const r of rows)
      console.log(
        `| ${r.target} | ${r.requestsPerSecond} | ${r.p50} | ${r.p90} | ${r.p99} | ${r.errors} | ${r.partsPerSecond} |`,
      );
    mkdirSync("bench/results", { recursive: true });
    writeFileSync(`bench/results/send-worker-${values.db}.json`, JSON.stringify({ machine, seconds, rows }, null, 2));
  } finally {
    await releaseFactories();
    await server.stop();
  }
}

async function main() {
  if (values.growth) return growth(Number(values.growth));
  if (values.worker) return withWorker(Number(values.worker));
  const rows: Row[] = [];
  const base = await baseline();
  const sample = JSON.stringify({
    accountId: "x",
    from: "12025550100",
    to: "14155550123",
    body: "Hello from the benchmark",
  });
  rows.push(
    row(
      "baseline: bare Node http JSON echo",
      "saturation",
      await load(`http://127.0.0.1:${base.port}/`, { body: sample, headers: { "content-type": "application/json" } }),
      1,
    ),
  );
  base.stop();

  const server = await startServer({ env: { LOG_LEVEL: "warn" } });
  try {
    const account = await createTestAccount(server, { numbers: 1 });
    if (values["daily-limit"]) {
      const limit = Number(values["daily-limit"]);
      const res = await fetch(`${server.baseUrl}/api/admin/accounts/${account.accountId}`, {
        method: "PUT",
        headers: account.headers,
        body: JSON.stringify({ dailyMessageLimit: limit, dailySegmentLimit: limit }),
      });
      if (res.status !== 200) throw new Error(`setting the daily limits: ${res.status} ${await res.text()}`);
    }
    const url = `${server.baseUrl}/v3/messages`;
    const single = JSON.stringify({
      accountId: account.accountId,
      from: account.numbers[0],
      to: "14155550123",
      body: "Hello from the benchmark",
    });
    const hundred = JSON.stringify({
      accountId: account.accountId,
      from: account.numbers[0],
      toArray: Array.from({ length: 100 }, (_, i) => `1415555${String(1000 + i).padStart(4, "0")}`),
      body: "Hello from the benchmark",
    });
    // Warm-up: JIT, connection pool, SQLite page cache.
    await autocannon({ url, method: "POST", body: single, headers: account.headers, connections: 10, amount: 2000 });
    for (const rate of values.rates.split(",").map(Number)) {
      rows.push(
        row(
          "send, 1 destination",
          `${rate} req/s`,
          await load(url, { body: single, headers: account.headers, rate }),
          1,
        ),
      );
    }
    // Group commit: the more requests wait on one commit, the larger the batch; saturation at two concurrencies.
    for (const c of [connections, 400]) {
      rows.push(
        row(
          "send, 1 destination",
          `saturation, ${c} connections`,
          await load(url, { body: single, headers: account.headers, connections: c }),
          1,
        ),
      );
    }
    for (const rate of [10, 20]) {
      rows.push(
        row(
          "send, 100 destinations",
          `${rate} req/s`,
          await load(url, { body: hundred, headers: account.headers, rate }),
          100,
        ),
      );
    }
    rows.push(
      row("send, 100 destinations", "saturation", await load(url, { body: hundred, headers: account.headers }), 100),
    );

    const stored = await db().message.count({ where: { accountId: account.accountId } });
    console.log(`\nPOST /v3/messages — ${machine}; ${seconds} s per step, load generator on the same machine\n`);
    console.log("| scenario | load | accepted req/s | messages/s | p50 ms | p90 ms | p99 ms | errors |");
    console.log("|---|---|---|---|---|---|---|---|");
    for (const r of rows) {
      console.log(
        `| ${r.scenario} | ${r.target} | ${r.requestsPerSecond} | ${r.messagesPerSecond} | ${r.p50} | ${r.p90} | ${r.p99} | ${r.errors} |`,
      );
    }
    console.log(
      `\nmessages stored for the benchmark account: ${stored} (every accepted one was committed before its answer)`,
    );
    mkdirSync("bench/results", { recursive: true });
    writeFileSync(`bench/results/send-${values.db}.json`, JSON.stringify({ machine, seconds, rows, stored }, null, 2));
  } finally {
    await releaseFactories();
    await server.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
