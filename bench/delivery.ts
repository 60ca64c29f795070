// The delivery engine measured in this process: a DeliveryWorker drains a backlog queued through the send service
// into a carrier wrapped to timestamp every submit and every recorded receipt.
//   npm run bench:delivery -- [--db sqlite|postgresql] [--backlog 60] [--numbers 1000[,990…]] [--per-number 5]
//                             [--window 50] [--receipt-delay 10] [--timeout 120] [--stall 20]
//                             [--only pacing,simulator,smpp] [--trace] [--out bench/results/delivery-<db>.json]
// Scenarios, each on a fresh database with the migrations applied:
//   pacing     one number, `--backlog` single-segment messages: the rate out of the worker (goal ≥ 0.98/s) and
//              spacing violations, consecutive submits from the number < 1000 ms apart (goal 0), timed with
//              performance.now() where the carrier writes the part; also counted: gaps under 999 ms.
//   simulator  `--numbers` numbers × `--per-number` messages (once per count given), account limit 100,000/s,
//              the simulator carrier with a `--receipt-delay` ms receipt: messages/s out (goal ≥ 500/s).
//   smpp       the same through the SMPP carrier (window `--window`) to an SMSC in this process (the integration
//              tests' TestSmsc) that answers every submit_sm at once and sends a DELIVRD receipt after the delay.
// Every wait is bounded by `--timeout` seconds (the pacing run by backlog + 30 s), and a run ends early when for
// `--stall` seconds nothing was submitted or receipted and no step of the worker finished without an error; such
// a run is reported with what it did, marked incomplete, with the errors the worker's rounds failed with.
// `--trace` prints each step of the worker as it starts and ends; `--out` writes the results elsewhere.
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg, totalmem } from "node:os";
import { dirname } from "node:path";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { reloadEnv } from "../lib/env";
import { db, disconnectDb } from "../lib/db/client";
import { prepareDatabase } from "../lib/boot/prepare-database";
import { createAccount } from "../lib/accounts/manage-accounts";
import { provisionNumber } from "../lib/numbers/manage-numbers";
import { sendMessages } from "../lib/messaging/send-message";
import type { SendRequest } from "../lib/messaging/send-schema";
import { DeliveryWorker } from "../lib/delivery/delivery-worker";
import type { Carrier, Departure, OutboundPart, SubmitResult } from "../lib/carriers/carrier";
import { createSimulatorCarrier, receiptText } from "../lib/carriers/simulator/simulator-carrier";
import { createSmppCarrier } from "../lib/carriers/smpp/smpp-carrier";
import { createTestDatabase } from "../tests/helpers/test-database";
import { TestSmsc } from "../tests/integration/helpers/test-smsc";

const { values } = parseArgs({
  options: {
    db: { type: "string", default: "sqlite" },
    backlog: { type: "string", default: "60" },
    numbers: { type: "string", default: "1000" },
    "per-number": { type: "string", default: "5" },
    window: { type: "string", default: "50" },
    "receipt-delay": { type: "string", default: "10" },
    "poll-ms": { type: "string", default: "20" },
    timeout: { type: "string", default: "120" },
    stall: { type: "string", default: "20" },
    trace: { type: "boolean", default: false },
    out: { type: "string" },
    only: { type: "string", default: "pacing,simulator,smpp" },
  },
});
if (values.db !== "sqlite" && values.db !== "postgresql") throw new Error("--db is sqlite or postgresql");
process.env.PARLEY_TEST_DB = values.db;
// The worker logs each failed round; the bench counts those itself (see `errors` in the results), so only fatal
// lines are printed unless LOG_LEVEL says otherwise.
process.env.LOG_LEVEL ??= "fatal";
const backlog = Number(values.backlog);
const numberCounts = values.numbers.split(",").map(Number);
const perNumber = Number(values["per-number"]);
const smppWindow = Number(values.window);
const receiptDelayMs = Number(values["receipt-delay"]);
const pollMs = Number(values["poll-ms"]);
const timeoutMs = Number(values.timeout) * 1000;
const stallMs = Number(values.stall) * 1000;
const only = new Set(values.only.split(","));
// GSM-7, one segment, and a text of its own per request: the same text to more than 20 destinations is bulk.
let bodies = 0;
const body = () => `Your code is ${100000 + bodies++}. Reply STOP to opt out.`;

// A hard stop for the whole run, whatever hangs.
const budgetMs =
  (only.has("pacing") ? backlog * 1000 + 30_000 : 0) + numberCounts.length * 2 * (timeoutMs + 60_000) + 120_000;
setTimeout(() => {
  console.error(`bench/delivery.ts: still running after ${Math.round(budgetMs / 1000)} s; giving up`);
  process.exit(2);
}, budgetMs).unref();

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// --- instrumentation ------------------------------------------------------------------------------------------

interface SubmitStamp {
  messageId: string;
  from: string;
  /** Date.now() when the part was written (the carrier called left()), and a sub-millisecond reading of the same. */
  at: number;
  hr: number;
  ok?: boolean;
}

interface Probe {
  carrier: Carrier;
  submits: SubmitStamp[];
  /** Message ids the carrier accepted. */
  accepted: Set<string>;
  /** When each receipt's handler (recordReceipt) finished. */
  receipts: number[];
  refused: number;
}

/** The carrier, wrapped: every submit timestamped as the worker hands it over, every receipt once recorded. */
function probe(inner: Carrier): Probe {
  const p: Probe = { carrier: inner, submits: [], accepted: new Set(), receipts: [], refused: 0 };
  p.carrier = {
    name: `${inner.name} (timed)`,
    start: (events) =>
      inner.start({
        onReceipt: async (receipt) => {
          await events.onReceipt(receipt);
          p.receipts.push(Date.now());
        },
        onInbound: (message) => events.onInbound(message),
      }),
    async submit(part: OutboundPart, departure?: Departure): Promise<SubmitResult> {
      const stamp: SubmitStamp = { messageId: part.messageId, from: part.from, at: Date.now(), hr: 0 };
      // Stamped as the part is written (the carrier says so right after), after any wait for its window.
      const result = await inner.submit(part, {
        leave: () => departure?.leave(),
        left: () => {
          stamp.at = Date.now();
          stamp.hr = performance.timeOrigin + performance.now();
          p.submits.push(stamp);
          departure?.left();
        },
      });
      stamp.ok = result.ok;
      if (result.ok) p.accepted.add(part.messageId);
      else p.refused++;
      return result;
    },
    stop: () => inner.stop(),
  };
  return p;
}

interface Phase {
  calls: number;
  ms: number;
  /** Parts handled, for the phases that take a list of them. */
  items: number;
  /** Calls that threw, and the distinct first lines of what they threw. */
  failed: number;
  errors: string[];
}

/**
 * Times the worker's own steps from outside: their methods are replaced on the worker, its outcome recorder and its
 * receipt batches by timed wrappers (each calls them through `this`). Wall time per step; steps overlap only for
 * receipts.
 */
function timePhases(worker: DeliveryWorker): Record<string, Phase> {
  const phases: Record<string, Phase> = {};
  type Methods = Record<string, (...args: unknown[]) => Promise<unknown>>;
  const parts = worker as unknown as { outcomes: Methods; receipts: Methods };
  const owners: [string, Methods][] = [
    ["tick", worker as unknown as Methods],
    ["claimNumbers", worker as unknown as Methods],
    ["sendRound", worker as unknown as Methods],
    ["loadQueues", worker as unknown as Methods],
    ["loadAccounts", worker as unknown as Methods],
    ["reserve", worker as unknown as Methods],
    ["record", parts.outcomes],
    ["handleReceipt", parts.receipts],
    ["flushReceipts", parts.receipts],
  ];
  for (const [name, target] of owners) {
    const original = target[name]!.bind(target);
    const phase: Phase = (phases[name] = { calls: 0, ms: 0, items: 0, failed: 0, errors: [] });
    target[name] = async (...args: unknown[]) => {
      const started = performance.now();
      if (values.trace && name !== "handleReceipt") console.error(`${Math.round(started)} ${name} …`);
      try {
        return await original(...args);
      } catch (error) {
        phase.failed++;
        const text = String((error as Error).message ?? error)
          .trim()
          .split("\n")
          .at(-1)!;
        if (phase.errors.length < 5 && !phase.errors.includes(text)) phase.errors.push(text);
        throw error;
      } finally {
        phase.calls++;
        phase.ms += performance.now() - started;
        if (values.trace && name !== "handleReceipt")
          console.error(
            `${Math.round(performance.now())} ${name} done in ${Math.round(performance.now() - started)} ms`,
          );
        if (Array.isArray(args[0])) phase.items += args[0].length;
      }
    };
  }
  return phases;
}

// --- set-up ---------------------------------------------------------------------------------------------------

/** A fresh database with the migrations applied, this process pointed at it for the duration of `run`. */
async function withDatabase<T>(run: () => Promise<T>): Promise<T> {
  const database = await createTestDatabase();
  await disconnectDb();
  process.env.DATABASE_URL = database.url;
  reloadEnv();
  await prepareDatabase();
  try {
    return await run();
  } finally {
    await disconnectDb();
    await database.drop();
  }
}

/**
 * Distinct valid US numbers: sender i and destination i (destinations never end in the simulator's 0000–0004).
 * Each scenario takes senders of its own: the send service remembers a number's owner for a few seconds, and the
 * previous scenario's account is gone with its database.
 */
let senderBase = 2000000;
const senderNumber = (i: number) => `1415${senderBase + i}`;
const destinationNumber = (i: number) => `1617${3000100 + i}`;

async function queueBacklog(senders: number, each: number, rateLimitPerSecond: number) {
  const account = await createAccount({ name: "Delivery bench", rateLimitPerSecond });
  senderBase += 100_000;
  const numbers: string[] = [];
  for (let i = 0; i < senders; i++)
    numbers.push(
      (await provisionNumber({ accountId: account.id, number: `+${senderNumber(i)}`, actor: "cli" })).number,
    );
  const sender = { kind: "apiKey", accountId: account.id, apiKeyId: "bench" } as const;
  const send = async (request: Partial<SendRequest>) => {
    const { messageInfo: info } = await sendMessages({
      sender,
      request: { accountId: account.id, body: body(), bulk: false, ...request } as SendRequest,
      requestId: "bench",
    });
    const refused = info.filter((m) => m.status !== "accepted").length;
    if (refused > 0) throw new Error(`${refused} messages were not accepted`);
  };
  const started = performance.now();
  if (senders === 1) {
    // One API call per message, as a client sending one text at a time would.
    for (let i = 0; i < each; i += 50) {
      await Promise.all(
        Array.from({ length: Math.min(50, each - i) }, (_, k) =>
          send({ from: numbers[0], to: destinationNumber(i + k) }),
        ),
      );
    }
  } else {
    // One call per number with its `each` destinations (bulk: false, so ad hoc pacing applies).
    for (let i = 0; i < senders; i += 100) {
      await Promise.all(
        numbers
          .slice(i, i + 100)
          .map((from, k) =>
            send({ from, toArray: Array.from({ length: each }, (_, d) => destinationNumber((i + k) * each + d)) }),
          ),
      );
    }
  }
  const queued = await db().message.count({ where: { accountId: account.id, status: "queued" } });
  const bulk = await db().message.count({ where: { accountId: account.id, bulk: true } });
  if (bulk > 0) throw new Error(`${bulk} messages were queued as bulk; the benchmark measures ad hoc pacing`);
  return { accountId: account.id, numbers, queued, enqueueMs: performance.now() - started };
}

// --- measurement ----------------------------------------------------------------------------------------------

function percentile(sorted: number[], p: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

interface Run {
  scenario: string;
  messages: number;
  submitted: number;
  receiptsRecorded: number;
  delivered: number;
  /** Messages by final status once the worker has stopped (`sent`: its receipt was never recorded). */
  statuses: Record<string, number>;
  timedOut: boolean;
  /** Worker rounds that failed (each is logged by the worker and retried on its next poll), and why. */
  failedTicks: number;
  errors: string[];
  /** From worker.start() to the first submit. */
  firstSubmitMs: number | null;
  /** First to last submit, and first submit to the last receipt recorded. */
  submitSpanMs: number | null;
  receiptSpanMs: number | null;
  /** (submitted − 1) / first→last submit, and submitted / first submit→last receipt. */
  submitRate: number | null;
  receiptRate: number | null;
  /** Consecutive submits from one number < 1000 ms apart, and those < 999 ms apart (sub-millisecond timing). */
  spacingViolations: number;
  spacingViolationsOver1ms: number;
  minGapMs: number | null;
  meanGapMs: number | null;
  maxGapMs: number | null;
  acceptedToSentP50: number | null;
  acceptedToSentP99: number | null;
  /** How much later than a perfect engine (k-th message of a number at worker start + k s) each message left. */
  latenessP50: number | null;
  latenessP99: number | null;
  refused: number;
  /** CPU this process used during the run (both threads of the SQLite send writer included) and its wall time. */
  cpuMs: number;
  wallMs: number;
  /** The machine's 1-minute load average when the run started (other work on the machine shows here). */
  loadAverage: number;
  phases: Record<string, Omit<Phase, "errors">>;
}

async function drive(
  scenario: string,
  inner: Carrier,
  queue: { accountId: string; queued: number },
  limitMs: number,
): Promise<Run> {
  const p = probe(inner);
  const worker = new DeliveryWorker({ carrier: p.carrier, pollMs });
  const phases = timePhases(worker);
  const expected = queue.queued;
  const load = loadavg()[0]!;
  const cpuBefore = process.cpuUsage();
  const startedAt = Date.now();
  await worker.start();
  const deadline = startedAt + limitMs;
  let progress = -1;
  let progressAt = Date.now();
  while ((p.accepted.size < expected || p.receipts.length < expected) && Date.now() < deadline) {
    await sleep(20);
    // Progress: a submit, a receipt, or a step of the worker that finished without an error.
    const now =
      p.submits.length +
      p.accepted.size +
      p.receipts.length +
      Object.values(phases).reduce((n, ph) => n + ph.calls - ph.failed, 0);
    if (now !== progress) {
      progress = now;
      progressAt = Date.now();
    } else if (Date.now() - progressAt > stallMs) break;
  }
  const timedOut = p.accepted.size < expected || p.receipts.length < expected;
  if (values.trace)
    console.error(
      `${Math.round(performance.now())} stopping: ${p.accepted.size} accepted, ${p.receipts.length} receipts of ${expected}`,
    );
  await worker.stop();
  const cpu = process.cpuUsage(cpuBefore);
  const wallMs = Date.now() - startedAt;

  const ok = p.submits.filter((s) => s.ok);
  const first = ok[0]?.at ?? null;
  const last = ok.at(-1)?.at ?? null;
  const lastReceipt = p.receipts.length > 0 ? Math.max(...p.receipts) : null;

  // Spacing per number, at the carrier: consecutive submits (every attempt counts) closer than 1000 ms.
  const byNumber = new Map<string, SubmitStamp[]>();
  for (const s of p.submits) byNumber.set(s.from, [...(byNumber.get(s.from) ?? []), s]);
  let violations = 0;
  let violationsOver1ms = 0;
  let minGap = Infinity;
  let maxGap = -Infinity;
  let gapSum = 0;
  let gaps = 0;
  const lateness: number[] = [];
  for (const stamps of byNumber.values()) {
    stamps.sort((a, b) => a.hr - b.hr);
    stamps.forEach((s, k) => {
      lateness.push(s.at - (startedAt + k * 1000));
      if (k === 0) return;
      const gap = s.hr - stamps[k - 1]!.hr;
      if (gap < 1000) violations++;
      if (gap < 999) violationsOver1ms++;
      minGap = Math.min(minGap, gap);
      maxGap = Math.max(maxGap, gap);
      gapSum += gap;
      gaps++;
    });
  }
  lateness.sort((a, b) => a - b);

  const sdrs = await db().sdr.findMany({
    where: { accountId: queue.accountId, status: { in: ["accepted", "message_sent"] } },
    select: { messageId: true, status: true, createdAt: true },
  });
  const acceptedAt = new Map<string, number>();
  for (const r of sdrs) if (r.status === "accepted") acceptedAt.set(r.messageId, r.createdAt.getTime());
  const toSent = sdrs
    .filter((r) => r.status === "message_sent" && acceptedAt.has(r.messageId))
    .map((r) => r.createdAt.getTime() - acceptedAt.get(r.messageId)!)
    .sort((a, b) => a - b);
  const statuses = Object.fromEntries(
    (await db().message.groupBy({ by: ["status"], where: { accountId: queue.accountId }, _count: { _all: true } })).map(
      (g) => [g.status, g._count._all],
    ),
  );
  const delivered = statuses.delivered ?? 0;

  const round = (n: number | null, digits = 0) => (n === null ? null : Number(n.toFixed(digits)));
  return {
    scenario,
    messages: expected,
    submitted: p.accepted.size,
    receiptsRecorded: p.receipts.length,
    delivered,
    statuses,
    timedOut,
    failedTicks: phases.tick!.failed,
    errors: [...new Set(Object.values(phases).flatMap((ph) => ph.errors))],
    firstSubmitMs: first === null ? null : first - startedAt,
    submitSpanMs: first === null || last === null ? null : last - first,
    receiptSpanMs: first === null || lastReceipt === null ? null : lastReceipt - first,
    submitRate:
      first !== null && last !== null && last > first ? round((ok.length - 1) / ((last - first) / 1000), 3) : null,
    receiptRate:
      first !== null && lastReceipt !== null && lastReceipt > first
        ? round(p.receipts.length / ((lastReceipt - first) / 1000), 3)
        : null,
    spacingViolations: violations,
    spacingViolationsOver1ms: violationsOver1ms,
    minGapMs: Number.isFinite(minGap) ? round(minGap, 2) : null,
    meanGapMs: gaps > 0 ? round(gapSum / gaps, 2) : null,
    maxGapMs: Number.isFinite(maxGap) ? round(maxGap, 2) : null,
    acceptedToSentP50: percentile(toSent, 50),
    acceptedToSentP99: percentile(toSent, 99),
    latenessP50: percentile(lateness, 50),
    latenessP99: percentile(lateness, 99),
    refused: p.refused,
    cpuMs: Math.round((cpu.user + cpu.system) / 1000),
    wallMs,
    loadAverage: Number(load.toFixed(2)),
    phases: Object.fromEntries(
      Object.entries(phases).map(([k, v]) => [
        k,
        { calls: v.calls, ms: Math.round(v.ms), items: v.items, failed: v.failed },
      ]),
    ),
  };
}

/** The integration tests' SMSC, answering each submit_sm at once and sending a DELIVRD receipt `delayMs` later. */
async function startSmsc(delayMs: number): Promise<{ smsc: TestSmsc; refusedReceipts: () => number }> {
  const smsc = await TestSmsc.start();
  let refused = 0;
  smsc.answer = (submit, index) => {
    // TestSmsc numbers its message ids M000001, M000002, … in the order it answers; answers here are immediate.
    const id = `M${String(index + 1).padStart(6, "0")}`;
    const submitted = new Date();
    setTimeout(() => {
      const text = receiptText(id, "delivered", submitted, new Date(), "");
      smsc
        .deliver({
          source_addr: submit.destinationAddr,
          destination_addr: submit.sourceAddr,
          esm_class: 0x04,
          short_message: text,
        })
        .then((status) => void (status !== 0 && refused++))
        .catch(() => refused++);
    }, delayMs);
    return {};
  };
  return { smsc, refusedReceipts: () => refused };
}

// --- main -----------------------------------------------------------------------------------------------------

async function main() {
  const runs: (Run & { enqueueMs: number })[] = [];

  if (only.has("pacing")) {
    const run = await withDatabase(async () => {
      const queue = await queueBacklog(1, backlog, 10);
      const r = await drive(
        "pacing: 1 number",
        createSimulatorCarrier({ receiptDelayMs }),
        queue,
        backlog * 1000 + 30_000,
      );
      return { ...r, enqueueMs: Math.round(queue.enqueueMs) };
    });
    runs.push(run);
    console.error(`pacing done: ${run.submitted}/${run.messages}, ${run.submitRate}/s`);
  }

  for (const numberCount of numberCounts) {
    if (only.has("simulator")) {
      const run = await withDatabase(async () => {
        const queue = await queueBacklog(numberCount, perNumber, 100_000);
        const r = await drive(
          `throughput: ${numberCount} numbers, simulator`,
          createSimulatorCarrier({ receiptDelayMs }),
          queue,
          timeoutMs,
        );
        return { ...r, enqueueMs: Math.round(queue.enqueueMs) };
      });
      runs.push(run);
      console.error(`simulator done: ${run.submitted}/${run.messages}, ${run.submitRate}/s`);
    }

    if (only.has("smpp")) {
      const run = await withDatabase(async () => {
        const { smsc, refusedReceipts } = await startSmsc(receiptDelayMs);
        try {
          const queue = await queueBacklog(numberCount, perNumber, 100_000);
          const carrier = createSmppCarrier({
            host: "127.0.0.1",
            port: smsc.port,
            systemId: smsc.systemId,
            password: smsc.password,
            window: smppWindow,
          });
          const r = await drive(
            `throughput: ${numberCount} numbers, SMPP window ${smppWindow}`,
            carrier,
            queue,
            timeoutMs,
          );
          if (refusedReceipts() > 0) console.error(`SMSC: ${refusedReceipts()} receipts not acknowledged with 0`);
          return { ...r, enqueueMs: Math.round(queue.enqueueMs) };
        } finally {
          await smsc.close();
        }
      });
      runs.push(run);
      console.error(`smpp done: ${run.submitted}/${run.messages}, ${run.submitRate}/s`);
    }
  }

  const machine = `${cpus().length} × ${cpus()[0]?.model.trim() ?? "cpu"}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${values.db}`;
  // The code measured: the commit, "-dirty" when lib/ has uncommitted changes.
  let commit = "unknown";
  try {
    commit = execFileSync("git", ["describe", "--always", "--dirty", "--exclude", "*"], { encoding: "utf8" }).trim();
    const libChanged = execFileSync("git", ["status", "--porcelain", "lib"], { encoding: "utf8" }).trim() !== "";
    commit = commit.replace(/-dirty$/, "") + (libChanged ? " + uncommitted changes in lib/" : "");
  } catch {
    // not a git checkout
  }
  const fmt = (n: number | null | undefined, digits = 0) => (n === null || n === undefined ? "–" : n.toFixed(digits));
  console.log(
    `\nDelivery worker at ${commit} — ${machine}; worker, carrier and SMSC in one process; pollMs ${pollMs}, receipt delay ${receiptDelayMs} ms\n`,
  );
  console.log(
    "| scenario | messages | submitted | delivered | receipts lost | first submit after start ms | first→last submit s | msgs/s out | →last receipt s | msgs/s receipted | spacing violations < 1000 / < 999 ms | gap min / mean ms | accepted→sent p50 / p99 ms | late vs perfect pacing p50 / p99 ms | failed rounds | CPU / wall s | load |",
  );
  console.log("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
  for (const r of runs) {
    console.log(
      `| ${r.scenario}${r.timedOut ? " (incomplete)" : ""} | ${r.messages} | ${r.submitted} | ${r.delivered} | ${r.receiptsRecorded - r.delivered} | ${fmt(r.firstSubmitMs)} | ${fmt(r.submitSpanMs === null ? null : r.submitSpanMs / 1000, 2)} | ${fmt(r.submitRate, r.submitRate !== null && r.submitRate < 10 ? 3 : 0)} | ${fmt(r.receiptSpanMs === null ? null : r.receiptSpanMs / 1000, 2)} | ${fmt(r.receiptRate, r.receiptRate !== null && r.receiptRate < 10 ? 3 : 0)} | ${r.spacingViolations} / ${r.spacingViolationsOver1ms} | ${fmt(r.minGapMs, 1)} / ${fmt(r.meanGapMs, 1)} | ${fmt(r.acceptedToSentP50)} / ${fmt(r.acceptedToSentP99)} | ${fmt(r.latenessP50)} / ${fmt(r.latenessP99)} | ${r.failedTicks} | ${fmt(r.cpuMs / 1000, 1)} / ${fmt(r.wallMs / 1000, 1)} | ${r.loadAverage} |`,
    );
  }
  console.log(
    "\nWhere the worker's wall time went: ms (calls; items: numbers for loadQueues, accounts for loadAccounts, parts for reserve and record):\n",
  );
  const phaseNames = [
    "tick",
    "claimNumbers",
    "sendRound",
    "loadQueues",
    "loadAccounts",
    "reserve",
    "record",
    "handleReceipt",
    "flushReceipts",
  ];
  console.log(`| scenario | ${phaseNames.join(" | ")} |`);
  console.log(`|---|${phaseNames.map(() => "---").join("|")}|`);
  for (const r of runs) {
    const cells = phaseNames.map((n) => {
      const ph = r.phases[n];
      if (!ph) return "–";
      return `${ph.ms} (${ph.calls}${ph.items ? `; ${ph.items}` : ""})`;
    });
    console.log(`| ${r.scenario} | ${cells.join(" | ")} |`);
  }
  for (const r of runs.filter((r) => r.errors.length > 0)) {
    console.log(`\n${r.scenario}: ${r.failedTicks} failed worker rounds; errors: ${r.errors.join(" | ")}`);
  }
  const out = values.out ?? `bench/results/delivery-${values.db}.json`;
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(
    out,
    JSON.stringify(
      {
        date: new Date().toISOString(),
        commit,
        machine,
        settings: { backlog, numbers: numberCounts, perNumber, window: smppWindow, receiptDelayMs, pollMs },
        runs,
      },
      null,
      2,
    ),
  );
}

main()
  .then(() => process.exit(0))
  .catch((error) => {
    console.error(error);
    process.exit(1);
  });
