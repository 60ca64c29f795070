// The measuring half of bench/compare-kannel.sh (the shell script starts and stops the processes):
//   ports <n>                     prints n free loopback TCP ports
//   provision --base URL --account ID --key KEY --prefix P --count N [--concurrency 16]
//                                 provisions P0000 … P(N-1) to the account through POST /v3/numbers
//   drain --sink F --receiver F --wrk F --load-start MS --load-end MS --cap S [--quiet S] [--stall S]
//         [--receipts] [--callbacks] --out F
//                                 waits until the SMSC sink has every accepted message (and, when asked, every
//                                 receipt acknowledged and every callback received) or the cap, then writes the
//                                 scenario's figures
//   meta --duration … --versions "…"   the run's date, commit, machine and settings as JSON
//   report --dir D --out F        prints the Markdown table of every scenario in D and writes the raw figures to F
import { execFileSync } from "node:child_process";
import { createServer } from "node:net";
import { cpus, totalmem } from "node:os";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { parseArgs } from "node:util";
import { performance } from "node:perf_hooks";
import { setTimeout } from "node:timers";

const [command, ...rest] = process.argv.slice(2);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const readJson = (file) => (file && existsSync(file) ? JSON.parse(readFileSync(file, "utf8")) : null);

async function freePorts(count) {
  const servers = [];
  const ports = [];
  for (let i = 0; i < count; i++) {
    const server = createServer();
    await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
    servers.push(server);
    ports.push(server.address().port);
  }
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  console.log(ports.join(" "));
}

async function provision(argv) {
  const { values } = parseArgs({
    args: argv,
    options: {
      base: { type: "string" },
      account: { type: "string" },
      key: { type: "string" },
      prefix: { type: "string" },
      count: { type: "string" },
      concurrency: { type: "string", default: "16" },
    },
  });
  const count = Number(values.count);
  if (!(count > 0 && count <= 10_000)) throw new Error("--count must be 1 to 10,000 (four digits after --prefix)");
  const started = performance.now();
  let next = 0;
  let failed = 0;
  let firstFailure = "";
  const worker = async () => {
    while (next < count) {
      const number = `+${values.prefix}${String(next++).padStart(4, "0")}`;
      const response = await globalThis.fetch(`${values.base}/v3/numbers`, {
        method: "POST",
        headers: { apikey: values.key, "content-type": "application/json" },
        body: JSON.stringify({ accountId: values.account, number }),
      });
      const text = await response.text();
      if (!response.ok) {
        failed++;
        firstFailure ||= `${number}: HTTP ${response.status} ${text.slice(0, 300)}`;
      }
    }
  };
  await Promise.all(Array.from({ length: Number(values.concurrency) }, worker));
  const seconds = (performance.now() - started) / 1000;
  console.error(
    `provisioned ${count - failed} of ${count} numbers through POST /v3/numbers in ${seconds.toFixed(1)} s (${Math.round(count / seconds)}/s)`,
  );
  if (failed) throw new Error(`${failed} numbers were refused; the first: ${firstFailure}`);
  console.log(seconds.toFixed(1));
}

/** Sum of whole seconds inside [from, to) over the per-second counts, and how many seconds that is. */
function ratePerWholeSecond(perSecond, from, to, index) {
  const first = Math.ceil(from / 1000);
  const last = Math.floor(to / 1000); // exclusive
  if (last <= first) return null;
  let sum = 0;
  for (let s = first; s < last; s++) {
    const slot = perSecond[s];
    sum += slot === undefined ? 0 : index === undefined ? slot : slot[index];
  }
  return sum / (last - first);
}

function peak(perSecond, index) {
  return Math.max(0, ...Object.values(perSecond).map((slot) => (index === undefined ? slot : slot[index])));
}

/** Thread id → [CPU ns, run-queue wait ns], from the kernel's schedstat of every thread of the processes. */
function cpuSnapshot(pids) {
  const threads = new Map();
  for (const pid of pids) {
    let tasks = [];
    try {
      tasks = readdirSync(`/proc/${pid}/task`);
    } catch {
      continue; // the process has gone
    }
    for (const tid of tasks) {
      try {
        const [run, wait] = readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ").map(Number);
        threads.set(tid, [run, wait]);
      } catch {
        // the thread ended meanwhile
      }
    }
  }
  return threads;
}

function readSnapshot(file) {
  const threads = new Map();
  if (!existsSync(file)) return threads;
  for (const line of readFileSync(file, "utf8").split("\n")) {
    const [tid, run, wait] = line.trim().split(/\s+/);
    if (tid && run !== undefined) threads.set(tid, [Number(run), Number(wait)]);
  }
  return threads;
}

/** CPU seconds of all threads between two snapshots, and the longest any one thread waited for a CPU meanwhile. */
function cpuBetween(before, after) {
  let cpuNs = 0;
  let longestWaitNs = 0;
  for (const [tid, [run, wait]] of after) {
    const [run0, wait0] = before.get(tid) ?? [0, 0];
    cpuNs += run - run0;
    longestWaitNs = Math.max(longestWaitNs, wait - wait0);
  }
  return { cpuS: cpuNs / 1e9, longestWaitS: longestWaitNs / 1e9 };
}

const perSecondOver = (count, from, at) => (count > 0 && at > from ? count / ((at - from) / 1000) : null);

async function drain(argv) {
  const { values } = parseArgs({
    args: argv,
    options: {
      sink: { type: "string" },
      receiver: { type: "string" },
      wrk: { type: "string" },
      "load-start": { type: "string" },
      "load-end": { type: "string" },
      cap: { type: "string", default: "60" },
      quiet: { type: "string", default: "2" },
      stall: { type: "string", default: "15" },
      receipts: { type: "boolean", default: false },
      callbacks: { type: "boolean", default: false },
      "cpu-pids": { type: "string", default: "" },
      "cpu-dir": { type: "string" },
      out: { type: "string" },
    },
  });
  const loadStart = Number(values["load-start"]);
  const loadEnd = Number(values["load-end"]);
  const wrk = readJson(values.wrk);
  if (!wrk) throw new Error(`no wrk result in ${values.wrk}`);
  // wrk counts responses >= 400 as status errors; Kannel answers 202 and Parley 202 to an accepted message.
  const accepted = wrk.requests - wrk.errors.status;
  const capAt = loadEnd + Number(values.cap) * 1000;
  const quietMs = Number(values.quiet) * 1000;
  const stallMs = Number(values.stall) * 1000;

  let sink;
  let receiver;
  let lastChange = Date.now();
  let previous = "";
  let stoppedBy = "cap";
  for (;;) {
    sink = readJson(values.sink);
    receiver = readJson(values.receiver);
    const counts = [sink?.submits, sink?.receiptsAcked, receiver?.callbacks].join(",");
    const now = Date.now();
    if (counts !== previous) {
      previous = counts;
      lastChange = now;
    }
    const submitted = (sink?.submits ?? 0) >= accepted;
    const receipted = !values.receipts || (sink?.receiptsAcked ?? 0) >= (sink?.receiptsAsked ?? 0);
    const calledBack = !values.callbacks || (receiver?.callbacks ?? 0) >= (sink?.receiptsAcked ?? 0);
    // Every count complete and still for `quiet` seconds (a request wrk stopped waiting for may still arrive).
    if (submitted && receipted && calledBack && now - lastChange >= quietMs) {
      stoppedBy = "drained";
      break;
    }
    if (now - lastChange >= stallMs) {
      stoppedBy = "stalled";
      break;
    }
    if (now >= capAt) break;
    await sleep(250);
  }

  const cpuAtEnd = cpuSnapshot(values["cpu-pids"].split(/\s+/).filter(Boolean));
  const cpuAtStart = readSnapshot(`${values["cpu-dir"]}/cpu-start.txt`);
  const duringLoad = cpuBetween(cpuAtStart, readSnapshot(`${values["cpu-dir"]}/cpu-load-end.txt`));
  const throughDrain = cpuBetween(cpuAtStart, cpuAtEnd);
  const durationMs = loadEnd - loadStart;
  const lastSubmitAt = sink?.lastSubmitAt ?? null;
  const lastReceiptAt = sink?.lastReceiptAt ?? null;
  const lastCallbackAt = receiver?.lastAt ?? null;
  const settledAt = Math.max(
    lastSubmitAt ?? 0,
    values.receipts ? (lastReceiptAt ?? 0) : 0,
    values.callbacks ? (lastCallbackAt ?? 0) : 0,
  );
  const result = {
    load: {
      durationS: durationMs / 1000,
      requests: wrk.requests,
      accepted,
      errors: wrk.errors,
      acceptedPerSecond: accepted / (wrk.durationUs / 1e6),
      latencyMs: Object.fromEntries(Object.entries(wrk.latencyUs).map(([k, v]) => [k, v / 1000])),
    },
    smsc: {
      submits: sink?.submits ?? 0,
      receiptsAsked: sink?.receiptsAsked ?? 0,
      receiptsAcked: sink?.receiptsAcked ?? 0,
      receiptsUnsent: sink?.receiptsUnsent ?? 0,
      receiptAckMs: sink?.receiptAckMs ?? null,
      submitsPerSecondDuringLoad: sink ? ratePerWholeSecond(sink.perSecond, loadStart, loadEnd, 0) : null,
      submitsPerSecond: perSecondOver(sink?.submits ?? 0, loadStart, lastSubmitAt),
      receiptsPerSecond: perSecondOver(sink?.receiptsAcked ?? 0, loadStart, lastReceiptAt),
      peakSubmitsPerSecond: sink ? peak(sink.perSecond, 0) : 0,
      lastSubmitAfterLoadS: lastSubmitAt ? (lastSubmitAt - loadEnd) / 1000 : null,
    },
    callbacks: values.callbacks
      ? {
          received: receiver?.callbacks ?? 0,
          kinds: receiver?.kinds ?? {},
          perSecond: perSecondOver(receiver?.callbacks ?? 0, loadStart, lastCallbackAt),
          perSecondDuringLoad: receiver ? ratePerWholeSecond(receiver.perSecond, loadStart, loadEnd) : null,
          peakPerSecond: receiver ? peak(receiver.perSecond) : 0,
          lastAfterLoadS: lastCallbackAt ? (lastCallbackAt - loadEnd) / 1000 : null,
        }
      : null,
    cpu: {
      duringLoadS: duringLoad.cpuS,
      // A thread that was ready to run but had no CPU for most of the load was held back by the machine.
      longestWaitForCpuShareOfLoad: duringLoad.longestWaitS / (durationMs / 1000),
      loadStartToEndS: throughDrain.cpuS,
      msPerMessage: sink?.submits ? (throughDrain.cpuS * 1000) / sink.submits : null,
    },
    drain: {
      stoppedBy,
      // wrk's own exit comes a little after its last request: a queue emptied during the load reads 0.
      settledAfterLoadS: settledAt ? Math.max(0, (settledAt - loadEnd) / 1000) : null,
      capS: Number(values.cap),
    },
  };
  mkdirSync(dirname(values.out), { recursive: true });
  writeFileSync(values.out, JSON.stringify(result, null, 2));
  const c = result.callbacks;
  console.error(
    `  accepted ${accepted} (${Math.round(result.load.acceptedPerSecond)}/s, p99 ${result.load.latencyMs.p99} ms); ` +
      `SMSC got ${result.smsc.submits}, receipts acknowledged ${result.smsc.receiptsAcked}` +
      (c ? `, callbacks ${c.received}` : "") +
      `; ${stoppedBy}${result.drain.settledAfterLoadS === null ? "" : `, last at load end + ${result.drain.settledAfterLoadS.toFixed(1)} s`}`,
  );
}

function meta(argv) {
  const settings = ["duration", "drain-cap", "numbers", "threads", "connections", "window"];
  const { values } = parseArgs({
    args: argv,
    options: {
      versions: { type: "string", default: "" },
      ...Object.fromEntries(settings.map((s) => [s, { type: "string" }])),
    },
  });
  const cpu = cpus();
  console.log(
    JSON.stringify(
      {
        date: new Date().toISOString(),
        commit: execFileSync("git", ["rev-parse", "--short", "HEAD"]).toString().trim(),
        machine: `${cpu.length} × ${cpu[0]?.model ?? "cpu"}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`,
        packages: values.versions.replace(/, $/, ""),
        settings: {
          durationS: Number(values.duration),
          drainCapS: Number(values["drain-cap"]),
          numbers: Number(values.numbers),
          wrkThreads: Number(values.threads),
          wrkConnections: Number(values.connections),
          smppWindow: Number(values.window),
        },
      },
      null,
      2,
    ),
  );
}

const SCENARIOS = [
  ["kannel-plain", "Kannel plain"],
  ["kannel-dlr", "Kannel DLR"],
  ["parley", "Parley"],
];

function report(argv) {
  const { values } = parseArgs({ args: argv, options: { dir: { type: "string" }, out: { type: "string" } } });
  const meta = readJson(`${values.dir}/meta.json`) ?? {};
  const runs = Object.fromEntries(
    SCENARIOS.map(([id]) => [
      id,
      { ...readJson(`${values.dir}/${id}.json`), ...readJson(`${values.dir}/${id}-setup.json`) },
    ]),
  );
  const has = (id) => runs[id]?.load !== undefined;
  const round = (v, digits = 0) =>
    v === null || v === undefined || Number.isNaN(v)
      ? "–"
      : Number(v).toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });
  const rows = [
    ["accepted requests/s (wrk)", (r) => r.load.acceptedPerSecond],
    ["p99 latency, ms (wrk)", (r) => r.load.latencyMs.p99, 1],
    ["messages to the SMSC/s during the load", (r) => r.smsc.submitsPerSecondDuringLoad],
    ["messages to the SMSC/s, load start → last submit", (r) => r.smsc.submitsPerSecond],
    ["receipts/s acknowledged, load start → last", (r) => (r.smsc.receiptsAcked ? r.smsc.receiptsPerSecond : null)],
    ["a receipt's wait for its acknowledgement, p50 ms", (r) => r.smsc.receiptAckMs?.p50 ?? null],
    ["a receipt's wait for its acknowledgement, p99 ms", (r) => r.smsc.receiptAckMs?.p99 ?? null],
    ["callbacks/s during the load", (r) => (r.callbacks ? r.callbacks.perSecondDuringLoad : null)],
    ["callbacks/s, load start → last", (r) => (r.callbacks ? r.callbacks.perSecond : null)],
    ["accepted (messages)", (r) => r.load.accepted],
    ["requests refused or failed (wrk)", (r) => Object.values(r.load.errors).reduce((a, b) => a + b, 0)],
    ["sent to the SMSC (messages)", (r) => r.smsc.submits],
    ["receipts acknowledged", (r) => (r.smsc.receiptsAsked ? r.smsc.receiptsAcked : null)],
    ["callbacks received", (r) => (r.callbacks ? r.callbacks.received : null)],
    ["last submit/receipt/callback after the load, s", (r) => r.drain.settledAfterLoadS, 1],
    ["gateway CPU s, load start → end of the drain", (r) => r.cpu?.loadStartToEndS, 1],
    ["gateway CPU ms per message sent", (r) => r.cpu?.msPerMessage, 3],
    [
      "one gateway thread's wait for a CPU, % of the load",
      (r) => (r.cpu ? 100 * r.cpu.longestWaitForCpuShareOfLoad : null),
    ],
  ];
  const lines = [
    "| metric | Kannel plain | Kannel DLR | Parley | Parley/Kannel DLR |",
    "| --- | ---: | ---: | ---: | ---: |",
  ];
  for (const [label, pick, digits] of rows) {
    const cells = SCENARIOS.map(([id]) => (has(id) ? pick(runs[id]) : null));
    const [, dlr, parley] = cells;
    const ratio =
      typeof dlr === "number" && typeof parley === "number" && dlr > 0 ? `${(parley / dlr).toFixed(2)}×` : "–";
    lines.push(`| ${label} | ${cells.map((c) => round(c, digits ?? 0)).join(" | ")} | ${ratio} |`);
  }
  const notes = SCENARIOS.filter(([id]) => has(id) && runs[id].drain.stoppedBy !== "drained").map(
    ([id, name]) =>
      `${name}: ${runs[id].drain.stoppedBy === "cap" ? `not drained within the cap (${runs[id].drain.capS} s after the load)` : "stopped moving before everything arrived"}`,
  );
  console.log(`\n${lines.join("\n")}\n`);
  if (notes.length) console.log(`${notes.join("\n")}\n`);
  if (meta.machine)
    console.log(
      `${meta.machine}; ${meta.packages}; ${meta.settings.durationS} s of wrk -t${meta.settings.wrkThreads} ` +
        `-c${meta.settings.wrkConnections} each, SMPP window ${meta.settings.smppWindow}, ${meta.settings.numbers} ` +
        `Parley numbers, commit ${meta.commit}; load average at each start: ${SCENARIOS.filter(([id]) => has(id))
          .map(([id, name]) => `${name} ${runs[id].loadAverage ?? "?"}`)
          .join(", ")}\n`,
    );
  mkdirSync(dirname(values.out), { recursive: true });
  writeFileSync(values.out, JSON.stringify({ ...meta, table: lines, scenarios: runs }, null, 2));
  console.log(`Raw figures: ${values.out}`);
}

const commands = {
  ports: () => freePorts(Number(rest[0] ?? 1)),
  provision: () => provision(rest),
  drain: () => drain(rest),
  report: () => report(rest),
  meta: () => meta(rest),
};
if (!commands[command]) {
  console.error("usage: measure.mjs ports|provision|drain|meta|report …");
  process.exit(2);
}
await commands[command]();
