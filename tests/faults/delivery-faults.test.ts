import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type pg from "pg";
import { startServer, type RunningServer } from "../helpers/server";
import type { TestDatabase } from "../helpers/test-database";
import { call, createTestAccount, releaseFactories, type TestAccount } from "../helpers/factories";
import { killAllWorkers, startWorker, type WorkerProcess } from "../helpers/worker-process";
import { startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver";
import { postgresVersion, startPgCluster, type PgCluster } from "./helpers/pg-cluster";
import { startTcpProxy, type TcpProxy } from "./helpers/tcp-proxy";
import { SMSC_PASSWORD, SMSC_SYSTEM_ID, startRecordingSmsc, type RecordingSmsc } from "./helpers/smsc-process";
import { startLoad, type Load } from "./helpers/load";
import {
  checkHistory,
  openInspector,
  waitForQuiescence,
  type CheckReport,
  type FaultWindow,
} from "./helpers/queue-checker";

// Faults injected under load into a deployment of one server and two delivery workers (`npm run worker`, real
// processes) on a PostgreSQL cluster of the suite's own, sending over SMPP to an SMSC process and posting webhooks
// to a receiver. Each worker reaches PostgreSQL through a TCP proxy of its own, which can go silent. Every scenario
// ends with the same checker (queue-checker.ts): nothing the API accepted is lost, parts reach the SMSC twice only
// when the answer to the first copy was lost, no number sends two parts less than a second apart on the wire, and
// every delivery-status event reaches the receiver.

const LEASE_SECONDS = 5;
const ESME_RTHROTTLED = 0x58;

let cluster: PgCluster;
let database: TestDatabase;
let server: RunningServer;
let smsc: RecordingSmsc;
let receiver: WebhookReceiver;
let inspect: pg.Pool;

/** A worker's place: its proxy to PostgreSQL, and the worker process running there now (restarted ones too). */
interface Slot {
  name: string;
  proxy: TcpProxy;
  generation: number;
  /** The SMPP system_type the current worker binds with, which tells its submits apart at the SMSC. */
  systemType: string;
  worker: WorkerProcess | null;
  env: Record<string, string>;
}

const slots: Record<"a" | "b", Slot> = {} as Record<"a" | "b", Slot>;
/** Every worker started, by SMPP system_type. */
const workersByType = new Map<string, WorkerProcess>();

function workerEnv(slot: Slot): Record<string, string> {
  return {
    CARRIER: "smpp",
    SMPP_HOST: "127.0.0.1",
    SMPP_PORT: String(smsc.port),
    SMPP_SYSTEM_ID: SMSC_SYSTEM_ID,
    SMPP_PASSWORD: SMSC_PASSWORD,
    SMPP_SYSTEM_TYPE: slot.systemType,
    WORKER_POLL_MS: "100",
    WORKER_LEASE_SECONDS: String(LEASE_SECONDS),
    // A connection that gets no answer for this long is closed (a silently dropped one is found this way).
    DATABASE_TIMEOUT_SECONDS: "3",
    RETRY_DELAYS_SECONDS: "1",
    WEBHOOK_ALLOW_PRIVATE: "true",
    WEBHOOK_POLL_MS: "100",
    WEBHOOK_TIMEOUT_SECONDS: "2",
    WEBHOOK_LEASE_SECONDS: "3",
    WEBHOOK_RETRY_SECONDS: "1",
    ...slot.env,
  };
}

async function startSlot(slot: Slot): Promise<WorkerProcess> {
  slot.generation++;
  slot.systemType = `${slot.name}${slot.generation}`;
  const worker = await startWorker(`postgresql://postgres@127.0.0.1:${slot.proxy.port}/parley`, workerEnv(slot));
  slot.worker = worker;
  workersByType.set(slot.systemType, worker);
  return worker;
}

beforeAll(async () => {
  const t0 = Date.now();
  cluster = await startPgCluster();
  await cluster.createDatabase("parley");
  database = { provider: "postgresql", url: cluster.url("parley"), drop: async () => undefined };
  const [started, smscStarted, receiverStarted, proxyA, proxyB] = await Promise.all([
    startServer({ database, env: { PARLEY_WORKER: "false", WEBHOOK_ALLOW_PRIVATE: "true" } }),
    startRecordingSmsc({ receiptDelayMs: 200 }),
    startWebhookReceiver(),
    startTcpProxy(cluster.port),
    startTcpProxy(cluster.port),
  ]);
  server = started;
  smsc = smscStarted;
  receiver = receiverStarted;
  // Worker a keeps one submit_sm outstanding at most (worker b the default ten) and rounds up a second's worth of
  // slots at a time: a round of a's holds several parts, and those after the first are handed to the carrier (or
  // not) only after the previous answer, which the fencing scenario relies on.
  slots.a = {
    name: "a",
    proxy: proxyA,
    generation: 0,
    systemType: "",
    worker: null,
    env: { SMPP_WINDOW: "1", WORKER_POLL_MS: "1000" },
  };
  slots.b = { name: "b", proxy: proxyB, generation: 0, systemType: "", worker: null, env: {} };
  await Promise.all([startSlot(slots.a), startSlot(slots.b)]);
  inspect = openInspector(database.url);
  console.log(
    `[faults] ${postgresVersion()} cluster on port ${cluster.port}, server, SMSC and two workers ready in ` +
      `${Date.now() - t0} ms`,
  );
}, 120_000);

afterAll(async () => {
  await killAllWorkers();
  await inspect?.end().catch(() => undefined);
  await releaseFactories();
  await server?.stop();
  await Promise.all([smsc?.close(), receiver?.close(), slots.a?.proxy.close(), slots.b?.proxy.close()]);
  cluster?.destroy();
});

// ---- helpers -----------------------------------------------------------------------------------------------

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `probe` (a failing probe counts as not yet: the database may be down) until it returns something. */
async function waitUntil<T>(
  what: string,
  probe: () => Promise<T | null | undefined | false> | T | null | undefined | false,
  timeoutMs: number,
  intervalMs = 50,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError = "";
  for (;;) {
    try {
      const value = await probe();
      if (value) return value;
    } catch (error) {
      lastError = ` (last error: ${(error as Error).message})`;
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${lastError}`);
    await sleep(intervalMs);
  }
}

async function newAccount(numbers: number): Promise<TestAccount> {
  const account = await createTestAccount(server, { numbers, rateLimitPerSecond: 100 });
  const res = await call(server, "PUT", `/api/admin/accounts/${account.accountId}/webhook`, {
    headers: account.headers,
    body: { url: receiver.url },
  });
  expect(res.status, res.text).toBe(200);
  return account;
}

interface NumberRow {
  number: string;
  leaseOwner: string | null;
  leaseUntil: Date | null;
}

async function numberRows(accountId: string): Promise<NumberRow[]> {
  const { rows } = await inspect.query<NumberRow>(
    `SELECT "number", "leaseOwner", "leaseUntil" FROM "PhoneNumber" WHERE "accountId" = $1 ORDER BY "number"`,
    [accountId],
  );
  return rows;
}

const submitsOf = (account: TestAccount, systemType?: string) =>
  smsc.submits.filter(
    (s) => account.numbers.includes(s.from) && (systemType === undefined || s.systemType === systemType),
  );

/**
 * Starts the load with the other worker paused (SIGSTOP) until this slot's worker holds `numbers` of the account's
 * numbers and has sent a few parts: a worker takes every number with work whose lease is free, so without the pause
 * whichever worker polls first would take them all.
 */
async function loadOnto(
  slot: Slot,
  account: TestAccount,
  options: { perSecond: number; tag: string; numbers?: number },
): Promise<{ load: Load; held: NumberRow[] }> {
  const other = slot === slots.a ? slots.b : slots.a;
  other.worker!.signalGroup("SIGSTOP");
  try {
    const load = startLoad(server, account, { perSecond: options.perSecond, tag: options.tag, longEvery: 4 });
    const held = await waitUntil(
      `worker ${slot.systemType} to hold ${options.numbers ?? 2} numbers of the account and send from them`,
      async () => {
        const held = (await numberRows(account.accountId)).filter((n) => n.leaseOwner === slot.worker!.id);
        const sent = submitsOf(account, slot.systemType);
        return (
          held.length >= (options.numbers ?? 2) && held.every((n) => sent.some((s) => s.from === n.number)) && held
        );
      },
      20_000,
    );
    return { load, held };
  } finally {
    other.worker!.signalGroup("SIGCONT");
  }
}

/**
 * Waits for a submit of one of these sessions (whose answers the SMSC holds since `since`) to arrive; if none
 * does, the hold is lifted before failing, so that the scenarios after this one are not held up too.
 */
async function heldSubmit(account: TestAccount, systemTypes: string[], since: number): Promise<void> {
  try {
    await waitUntil(
      `a submit of ${systemTypes.join(" or ")} awaiting its answer`,
      // Held, not merely seen: a submit read before the SMSC took the hold command is answered at once (its answer
      // follows within a millisecond), so only one still unanswered 100 ms later is known to be held.
      () =>
        submitsOf(account).some(
          (s) =>
            s.at >= since && s.at <= Date.now() - 100 && systemTypes.includes(s.systemType) && !smsc.answers.has(s.id),
        ),
      10_000,
      5,
    );
  } catch (error) {
    for (const type of systemTypes) smsc.release(type);
    throw error;
  }
}

/** Waits for the worker to write its heartbeat (every 5 s at least) after `since`: it reaches the database again. */
async function heartbeatAfter(worker: WorkerProcess, since: number): Promise<void> {
  await waitUntil(
    `worker ${worker.id} to write its heartbeat again`,
    async () => {
      const { rows } = await inspect.query<{ updatedAt: Date }>(
        `SELECT "updatedAt" FROM "WorkerStatus" WHERE "workerId" = $1`,
        [worker.id],
      );
      return rows[0] && rows[0].updatedAt.getTime() > since;
    },
    20_000,
    200,
  ).catch((error: Error) => {
    throw new Error(`${error.message}\nits log:\n${logSummary(worker)}`);
  });
}

/** A worker's JSON log, one short line an entry (time, message, error), for failure messages. */
function logSummary(worker: WorkerProcess, lines = 80): string {
  return worker
    .output()
    .split("\n")
    .flatMap((line) => {
      try {
        const entry = JSON.parse(line) as { time?: string; msg?: string; err?: { message?: string } };
        return [`${entry.time} ${entry.msg}${entry.err ? `: ${entry.err.message}` : ""}`];
      } catch {
        return line ? [line.slice(0, 200)] : [];
      }
    })
    .slice(-lines)
    .join("\n");
}

/** Where things stand, for a failure message: leases, the workers' last words, what the load was told. */
async function describeState(account: TestAccount, load: Load): Promise<string> {
  const numbers = await numberRows(account.accountId).catch((error: Error) => error.message);
  const workers = [...workersByType.entries()].map(
    ([type, w]) => `worker ${type} (${w.id}) log tail:\n${logSummary(w, 30)}`,
  );
  return [
    `numbers: ${JSON.stringify(numbers)}`,
    `refused sends: ${JSON.stringify(Object.fromEntries(load.refused))}`,
    `SMSC submits of the account: ${submitsOf(account).length}`,
    ...workers,
  ].join("\n");
}

/** The checker's verdict, after waiting for every accepted message and event to be settled. */
async function settleAndCheck(
  name: string,
  account: TestAccount,
  load: Load,
  faultWindow: FaultWindow,
  timeoutMs = 45_000,
): Promise<CheckReport> {
  await load.stop();
  const settledIn = await waitForQuiescence(inspect, account, load, timeoutMs, () => describeState(account, load));
  const report = await checkHistory({ db: inspect, smsc, receiver, account, load, faultWindow });
  const refused = Object.values(report.refused).reduce((sum, n) => sum + n, 0);
  const duplicates = report.duplicates.flatMap((d) =>
    d.lost.map((l) => `${l.id} by ${l.systemType}, recorded ${d.recorded.id} by ${d.recorded.systemType}`),
  );
  console.log(
    [
      `[faults] ${name}: ${report.accepted} messages accepted (${report.parts} parts), all delivered, settled ` +
        `${settledIn} ms after the load stopped`,
      `${report.submits} submits at the SMSC; duplicates (answer lost): ${duplicates.length}` +
        (duplicates.length > 0 ? ` (${duplicates.join("; ")})` : ""),
      `smallest gap between two parts of a number on the wire: ${report.minGapMs.toFixed(1)} ms (a part is on the ` +
        `wire ${report.wireLagMs.median.toFixed(2)} ms after the departure its worker recorded, at most ` +
        `${report.wireLagMs.max.toFixed(2)} ms)`,
      `${report.events} status events delivered (${report.eventsRepeated} received more than once, at most ` +
        `${report.maxEventAttempts} attempts for one)`,
      `sends refused by the API: ${refused}${refused > 0 ? ` ${JSON.stringify(report.refused)}` : ""}`,
    ].join("; "),
  );
  return report;
}

// ---- the scenarios ---------------------------------------------------------------------------------------

describe("delivery under faults (PostgreSQL, two workers, SMPP)", () => {
  it(
    "a worker killed with SIGKILL mid-submit: its numbers wait for the lease, then are taken over; nothing is lost",
    { timeout: 90_000 },
    async () => {
      const account = await newAccount(6);
      const slot = slots.a;
      const loadEnds = Date.now() + 7_000;
      const { load } = await loadOnto(slot, account, { perSecond: 4, tag: "kill" });
      // Answers to the victim's submits are held at the SMSC, so that it dies with parts on the wire.
      const faultFrom = Date.now();
      smsc.hold(slot.systemType);
      const victimType = slot.systemType;
      await heldSubmit(account, [victimType], faultFrom);
      const victim = slot.worker!;
      victim.signalGroup("SIGKILL");
      const killedAt = Date.now();
      expect((await victim.exited).signal).toBe("SIGKILL");
      smsc.release(victimType);
      const inFlight = submitsOf(account, victimType).filter((s) => s.at >= faultFrom);
      const leases = (await numberRows(account.accountId)).filter((n) => n.leaseOwner === victim.id);
      expect(leases.length).toBeGreaterThan(0);
      // A replacement starts at once; it and the other worker may take the numbers only once the leases ran out.
      const replacement = startSlot(slot);
      await sleep(Math.max(0, loadEnds - Date.now()));
      await replacement;
      // A round's answers are recorded together: those of the parts that left with the held one, up to a round
      // before it, died with the victim too.
      const report = await settleAndCheck("SIGKILL mid-submit", account, load, {
        from: faultFrom - 2_000,
        to: killedAt,
      });

      for (const lease of leases) {
        const after = smsc.arrivals.filter((a) => a.from === lease.number && a.t! > killedAt);
        expect(after.length, `parts sent from ${lease.number} after the kill`).toBeGreaterThan(0);
        expect(
          Math.min(...after.map((a) => a.t!)),
          `first part on the wire from ${lease.number} after the kill, not before its lease ran out`,
        ).toBeGreaterThanOrEqual(lease.leaseUntil!.getTime());
      }
      // The parts the victim had on the wire: their answers died with it, so each went again, once.
      const lost = new Set(report.duplicates.flatMap((d) => d.lost.map((l) => l.id)));
      for (const held of inFlight) expect(lost.has(held.id), `${held.id}, held at the kill, went again`).toBe(true);
      for (const copy of report.duplicates.flatMap((d) => d.lost)) expect(copy.systemType).toBe(victimType);
      const takenOver = submitsOf(account).filter((s) => leases.some((l) => l.number === s.from) && s.at > killedAt);
      console.log(
        `[faults] SIGKILL: ${inFlight.length} part(s) on the wire at the kill, ${leases.length} number(s) taken over ` +
          `${Math.min(...takenOver.map((s) => s.at)) - killedAt} ms after it (lease ${LEASE_SECONDS} s) by ` +
          `${[...new Set(takenOver.map((s) => s.systemType))].join(", ")}`,
      );
    },
  );

  it(
    "a worker paused past its lease (SIGSTOP) cannot record its late answers nor send again when it resumes",
    { timeout: 90_000 },
    async () => {
      const account = await newAccount(5);
      const slot = slots.a;
      // Several numbers: the paused round then holds parts still to be written besides the one on the wire (worker
      // a rounds up a second's worth of slots and has a window of one), which it must not write when it resumes.
      const { load } = await loadOnto(slot, account, { perSecond: 5, tag: "pause", numbers: 3 });
      const pausedType = slot.systemType;
      const paused = slot.worker!;
      const faultFrom = Date.now();
      smsc.hold(pausedType);
      await heldSubmit(account, [pausedType], faultFrom);
      paused.signalGroup("SIGSTOP");
      const stoppedAt = Date.now();
      // The parts it was waiting for at the pause. A submit read before the SMSC took the hold command was answered
      // at once, and its answer may have been recorded before the pause (a round's answers are recorded as they
      // come): that part left and was recorded under the worker's lease, and stays its.
      const held = submitsOf(account, pausedType).filter((s) => s.at >= faultFrom && !smsc.answers.has(s.id));
      // Their answers are written to its socket while it sleeps: the SMSC refuses those parts for now (throttled).
      // Resumed, the worker would record a retry for each, over the results of the worker that took over.
      smsc.release(pausedType, ESME_RTHROTTLED);
      const leases = (await numberRows(account.accountId)).filter((n) => n.leaseOwner === paused.id);
      try {
        // The other worker takes the numbers once the leases ran out and sends those parts itself.
        await waitUntil(
          "another worker to take over the paused worker's numbers and send its parts",
          async () => {
            const rows = await numberRows(account.accountId);
            if (!leases.every((l) => rows.find((r) => r.number === l.number)!.leaseOwner !== paused.id)) return false;
            const { rows: parts } = await inspect.query<{ carrierMessageId: string }>(
              `SELECT p."carrierMessageId" FROM "MessagePart" p JOIN "Message" m ON m."id" = p."messageId"
               WHERE m."accountId" = $1 AND m."toNumber" = ANY($2::text[])`,
              [account.accountId, held.map((h) => h.to)],
            );
            return parts.length >= held.length;
          },
          30_000,
        );
        await load.stop();
      } finally {
        paused.signalGroup("SIGCONT");
      }
      const resumedAt = Date.now();
      // Time for the resumed worker to read its answers, try to record them and look at its window again.
      await sleep(3_000);
      const report = await settleAndCheck("SIGSTOP past the lease", account, load, {
        from: faultFrom - 2_000,
        to: stoppedAt,
      });

      // The held parts went out again from the worker that took over, and only its results are recorded.
      const { rows: recorded } = await inspect.query<{
        toNumber: string;
        segmentNumber: number;
        carrierMessageId: string;
      }>(
        `SELECT m."toNumber", p."segmentNumber", p."carrierMessageId" FROM "MessagePart" p
         JOIN "Message" m ON m."id" = p."messageId" WHERE m."accountId" = $1 AND m."toNumber" = ANY($2::text[])`,
        [account.accountId, held.map((h) => h.to)],
      );
      for (const part of held) {
        const row = recorded.find((r) => r.toNumber === part.to && r.segmentNumber === part.seq);
        const copy = smsc.submits.find((s) => s.id === row?.carrierMessageId);
        expect(copy?.systemType, `who sent the part ${part.id} held at the pause`).not.toBe(pausedType);
      }
      // The paused round had parts besides the one on the wire (reserved together: their `sending` records share
      // the round's time), still waiting for their slot or the window when the worker stopped.
      const { rows: round } = await inspect.query<{ n: string }>(
        `SELECT count(*) AS n FROM "Sdr" s JOIN "Message" m ON m."id" = s."messageId"
         WHERE m."accountId" = $1 AND s."status" = 'sending' AND m."fromNumber" = ANY($2::text[]) AND s."createdAt" = (
           SELECT max(s2."createdAt") FROM "Sdr" s2 JOIN "Message" m2 ON m2."id" = s2."messageId"
           WHERE m2."toNumber" = $3 AND s2."status" = 'sending' AND s2."createdAt" < $4)`,
        [account.accountId, leases.map((l) => l.number), held[0]!.to, new Date(stoppedAt)],
      );
      expect(Number(round[0]!.n), "parts in the paused round").toBeGreaterThanOrEqual(2);
      const { rows: retries } = await inspect.query<{ n: string }>(
        `SELECT count(*) AS n FROM "Sdr" s JOIN "Message" m ON m."id" = s."messageId"
         WHERE m."accountId" = $1 AND s."status" = 'retry'`,
        [account.accountId],
      );
      expect(Number(retries[0]!.n), "retries recorded for the refused answers of the paused worker").toBe(0);
      // Resumed, it sent nothing it had reserved under the leases it lost. A number the other worker has given back
      // (its queue ran dry) may be claimed by it again: what it reserves then, under its new lease, may go.
      const lostNumbers = new Set(leases.map((l) => l.number));
      const late = submitsOf(account, pausedType).filter((s) => s.at >= stoppedAt && lostNumbers.has(s.from));
      const staleLate: string[] = [];
      for (const s of late) {
        const { rows } = await inspect.query<{ reservedAt: Date | null }>(
          `SELECT max(d."createdAt") AS "reservedAt" FROM "Sdr" d JOIN "Message" m ON m."id" = d."messageId"
           WHERE m."accountId" = $1 AND m."toNumber" = $2 AND d."status" = 'sending' AND d."segmentNumber" = $3
             AND d."createdAt" <= $4`,
          [account.accountId, s.to, s.seq, new Date(s.at)],
        );
        const reservedAt = rows[0]?.reservedAt?.getTime() ?? null;
        if (reservedAt === null || reservedAt < stoppedAt) staleLate.push(`${s.id} from ${s.from}`);
      }
      expect(staleLate, "parts the resumed worker sent that it had reserved before the pause").toEqual([]);
      console.log(
        `[faults] SIGSTOP: paused ${resumedAt - stoppedAt} ms with ${held.length} answer(s) unread, ` +
          `${Number(round[0]!.n) - held.length} part(s) of its round not yet written and ${leases.length} number(s); ` +
          `the other worker's results stand; duplicates: ${report.duplicates.length}; parts it sent later under a new ` +
          `lease: ${late.length}`,
      );
    },
  );

  it(
    "PostgreSQL stopped (-m immediate) under load and started again: nothing accepted is lost, workers recover",
    { timeout: 90_000 },
    async () => {
      const account = await newAccount(6);
      const load = startLoad(server, account, { perSecond: 4, tag: "pgrestart", longEvery: 4 });
      await waitUntil("parts on the wire", () => submitsOf(account).length >= 6, 20_000);
      const faultFrom = Date.now();
      cluster.stop("immediate");
      await sleep(2_500);
      cluster.start();
      const faultTo = Date.now();
      await sleep(3_000);
      const report = await settleAndCheck("PostgreSQL restart", account, load, {
        from: faultFrom - 2_000,
        to: faultTo + 5_000,
      });
      // Both workers are back at work: their heartbeats are written again.
      await Promise.all([slots.a, slots.b].map((slot) => heartbeatAfter(slot.worker!, faultTo)));
      // While it was down, the API answered sends with its error envelope (SystemFailure), quickly, not a crash.
      for (const answer of Object.keys(report.refused)) {
        expect(answer, "a send refused while PostgreSQL was down").toMatch(/^HTTP 500 \{"status":"SystemFailure"/);
      }
      console.log(
        `[faults] PostgreSQL restart: down ${faultTo - faultFrom} ms; ${report.duplicates.length} part(s) sent twice`,
      );
    },
  );

  it(
    "a worker's connections to PostgreSQL go silent (half-open) and come back: the other takes over, it recovers",
    { timeout: 90_000 },
    async () => {
      const account = await newAccount(6);
      const slot = slots.a;
      const silenced = slot.worker!;
      const silencedType = slot.systemType;
      const { load } = await loadOnto(slot, account, { perSecond: 4, tag: "halfopen" });
      const faultFrom = Date.now();
      slot.proxy.cut();
      const leases = (await numberRows(account.accountId)).filter((n) => n.leaseOwner === silenced.id);
      await sleep((LEASE_SECONDS + 2) * 1000);
      slot.proxy.restore();
      const faultTo = Date.now();
      // The others took its numbers once their leases ran out, not before.
      for (const lease of leases) {
        const after = smsc.arrivals.filter(
          (a) => a.from === lease.number && a.t! > faultFrom && a.systemType !== silencedType,
        );
        expect(after.length, `parts sent from ${lease.number} by another worker`).toBeGreaterThan(0);
        expect(
          Math.min(...after.map((a) => a.t!)),
          `first part on the wire from ${lease.number} by another worker, not before the lease ran out`,
        ).toBeGreaterThanOrEqual(lease.leaseUntil!.getTime());
      }
      // It recovers: its heartbeat is written again, and when the other worker stops it takes over everything. The
      // load goes on until it has sent again: otherwise the other worker may have sent all there was by then.
      await heartbeatAfter(silenced, faultTo);
      const other = slots.b.worker!;
      other.signalWorker("SIGTERM");
      expect(await other.exited).toEqual({ code: 0, signal: null });
      await waitUntil(
        "the recovered worker to send again",
        () => submitsOf(account, silencedType).some((s) => s.at > faultTo),
        15_000,
      ).catch((error: Error) => {
        throw new Error(`${error.message}; its log:\n${logSummary(silenced)}`);
      });
      await load.stop();
      const restarted = startSlot(slots.b);
      const report = await settleAndCheck("half-open connections", account, load, {
        from: faultFrom - 2_000,
        to: faultTo,
      });
      await restarted;
      const after = submitsOf(account, silencedType).filter((s) => s.at > faultTo);
      expect(
        after.length,
        `parts the silenced worker sent after it recovered (cut ${new Date(faultFrom).toISOString()}, restored ` +
          `${new Date(faultTo).toISOString()}); its log:\n${logSummary(silenced)}`,
      ).toBeGreaterThan(0);
      console.log(
        `[faults] half-open: silent ${faultTo - faultFrom} ms, ${leases.length} number(s) taken over; the worker ` +
          `sent ${after.length} part(s) after recovering; duplicates: ${report.duplicates.length}`,
      );
    },
  );

  it(
    "the SMSC killed mid-window and started again on the same port: parts and receipts are not lost",
    { timeout: 90_000 },
    async () => {
      const account = await newAccount(6);
      const load = startLoad(server, account, { perSecond: 4, tag: "smsc", longEvery: 4 });
      await waitUntil("parts on the wire", () => submitsOf(account).length >= 6, 20_000);
      // Answers held back a moment, so that the SMSC dies with submits outstanding.
      const faultFrom = Date.now();
      smsc.hold(slots.a.systemType);
      smsc.hold(slots.b.systemType);
      await heldSubmit(account, [slots.a.systemType, slots.b.systemType], faultFrom);
      await sleep(300);
      await smsc.kill();
      const killedAt = Date.now();
      await sleep(3_000);
      await smsc.restart();
      const faultTo = Date.now();
      await sleep(2_000);
      const report = await settleAndCheck("SMSC killed", account, load, { from: faultFrom - 2_000, to: killedAt });
      // Both workers bound again to the new SMSC, on the same port.
      const generation = smsc.binds.at(-1)!.generation;
      const rebound = smsc.binds.filter((b) => b.generation === generation && b.ok).map((b) => b.systemType);
      expect(rebound).toEqual(expect.arrayContaining([slots.a.systemType, slots.b.systemType]));
      // What it took and died before answering went again; the receipts it owed came from its successor.
      const unanswered = submitsOf(account).filter((s) => s.at >= faultFrom && !smsc.answers.has(s.id));
      expect(unanswered.length).toBeGreaterThan(0);
      const lost = new Set(report.duplicates.flatMap((d) => d.lost.map((l) => l.id)));
      for (const s of unanswered) expect(lost.has(s.id), `${s.id}, unanswered at the kill, went again`).toBe(true);
      console.log(
        `[faults] SMSC: down ${faultTo - killedAt} ms with ${unanswered.length} submit(s) unanswered; ` +
          `${report.duplicates.length} part(s) sent twice; both workers bound again`,
      );
    },
  );

  it(
    "the webhook receiver down for longer than three retry intervals: every event is delivered once it is back",
    { timeout: 90_000 },
    async () => {
      const account = await newAccount(4);
      await receiver.down();
      const downAt = Date.now();
      const load = startLoad(server, account, { perSecond: 4, tag: "webhook", longEvery: 4 });
      // Retries every second (WEBHOOK_RETRY_SECONDS=1, ±15 %): down for over four intervals after the first event.
      await waitUntil(
        "the first delivery-status event",
        async () => {
          const { rows } = await inspect.query(`SELECT 1 FROM "WebhookEvent" WHERE "accountId" = $1 LIMIT 1`, [
            account.accountId,
          ]);
          return rows.length > 0;
        },
        20_000,
      );
      await sleep(4_500);
      await receiver.up();
      const upAt = Date.now();
      await sleep(1_000);
      const report = await settleAndCheck("webhook receiver down", account, load, { from: 0, to: 0 });
      const { rows } = await inspect.query<{ failed: string }>(
        `SELECT count(*) AS failed FROM "WebhookAttempt" WHERE "accountId" = $1 AND "error" IS NOT NULL`,
        [account.accountId],
      );
      // Some event was tried at least three times in vain before its success.
      expect(report.maxEventAttempts).toBeGreaterThanOrEqual(4);
      console.log(
        `[faults] webhook receiver: down ${upAt - downAt} ms; ${rows[0]!.failed} failed attempts logged, at most ` +
          `${report.maxEventAttempts} attempts for one event; all ${report.events} events delivered`,
      );
    },
  );
});
